package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.streams.JsonSerde;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API's events, VMs and approvals, and {@code /metrics} (docs/fleet-openapi.yaml). Every route
 * needs a bearer token ({@link FleetServer} answers 401 without one). Handlers only translate:
 * requests to queries of the views, and approvals to audit records.
 */
public final class CoreApi implements Route {
  private static final Pattern EVENT = Pattern.compile("/api/events/([^/]+)");
  private static final Pattern APPROVE = Pattern.compile("/api/events/([^/]+)/approve");
  private static final Pattern VM = Pattern.compile("/api/vms/([^/]+)");
  private static final Pattern APPROVAL = Pattern.compile("/api/approvals/([^/]+)");
  private static final Pattern CAMPAIGN = Pattern.compile("/api/campaigns/([^/]+)");

  private final FleetQueries queries;
  private final CoverageQueries coverage;
  private final ApprovalRequests approvals;
  private final Supplier<String> metrics;

  public CoreApi(
      FleetQueries queries,
      CoverageQueries coverage,
      ApprovalRequests approvals,
      Supplier<String> metrics) {
    this.queries = queries;
    this.coverage = coverage;
    this.approvals = approvals;
    this.metrics = metrics;
  }

  @Override
  public boolean handle(HttpCall call, String path, Optional<Principal> principal)
      throws IOException {
    if (principal.isEmpty() || !FleetServer.api(path)) {
      return false; // not ours, or FleetServer answers 401
    }
    Principal p = principal.get();
    String method = call.method();
    Matcher m;
    if (path.equals("/metrics") && method.equals("GET")) {
      ApiInput.query(call, "/metrics");
      call.send(
          200,
          metrics.get().getBytes(StandardCharsets.UTF_8),
          "text/plain; version=0.0.4; charset=utf-8");
    } else if (path.equals("/api/events") && method.equals("GET")) {
      Map<String, String> q = ApiInput.query(call, "/api/events");
      call.json(
          200,
          queries.events(
              new FleetQueries.EventFilter(
                  q.containsKey("open") ? Boolean.valueOf(q.get("open")) : null,
                  q.get("type"),
                  q.get("source"),
                  q.get("zone"),
                  q.get("scaleSet"),
                  q.get("subscription"),
                  q.get("status"),
                  q.get("resourceGroup"),
                  q.get("text")),
              FleetQueries.Page.of(q, FleetQueries.EVENTS)));
    } else if ((m = APPROVE.matcher(path)).matches() && method.equals("POST")) {
      ApiInput.query(call, "/api/events/{eventId}/approve");
      approve(call, ApiInput.segment(m.group(1)), p);
    } else if ((m = EVENT.matcher(path)).matches() && method.equals("GET")) {
      ApiInput.query(call, "/api/events/{eventId}");
      call.json(200, ApiInput.found(queries.event(ApiInput.segment(m.group(1))), "event"));
    } else if (path.equals("/api/vms") && method.equals("GET")) {
      Map<String, String> q = ApiInput.query(call, "/api/vms");
      if (q.containsKey("inventory")) {
        coverage.requireInventory(); // without one, "no unknown VMs" would be a wrong answer
      }
      call.json(
          200,
          queries.vms(
              new VmQueries.VmFilter(
                  q.containsKey("silent") ? Boolean.valueOf(q.get("silent")) : null,
                  q.containsKey("inventory") ? q.get("inventory").equals("known") : null,
                  q.get("zone"),
                  q.get("scaleSet"),
                  q.get("resourceGroup"),
                  q.get("text"),
                  q.get("type"),
                  q.get("source"),
                  q.get("status")),
              FleetQueries.Page.of(q, FleetQueries.VMS)));
    } else if (path.equals("/api/coverage") && method.equals("GET")) {
      ApiInput.query(call, "/api/coverage");
      call.json(200, coverage.counts());
    } else if (path.equals("/api/coverage/without-agent") && method.equals("GET")) {
      Map<String, String> q = ApiInput.query(call, "/api/coverage/without-agent");
      call.json(200, coverage.withoutAgent(FleetQueries.Page.of(q, CoverageQueries.WITHOUT_AGENT)));
    } else if ((m = VM.matcher(path)).matches() && method.equals("GET")) {
      ApiInput.query(call, "/api/vms/{vmId}");
      call.json(200, ApiInput.found(queries.vm(ApiInput.segment(m.group(1))), "VM"));
    } else if (path.equals("/api/campaigns") && method.equals("GET")) {
      Map<String, String> q = ApiInput.query(call, "/api/campaigns");
      call.json(
          200,
          queries.campaigns(
              q.get("type"),
              q.get("source"),
              q.get("text"),
              FleetQueries.Page.of(q, FleetQueries.CAMPAIGNS, FleetQueries.CAMPAIGNS_PAGE)));
    } else if ((m = CAMPAIGN.matcher(path)).matches() && method.equals("GET")) {
      ApiInput.query(call, "/api/campaigns/{campaignId}");
      call.json(200, ApiInput.found(queries.campaign(ApiInput.segment(m.group(1))), "campaign"));
    } else if (path.equals("/api/approvals") && method.equals("GET")) {
      call.json(200, queries.approvals(ApiInput.query(call, "/api/approvals")));
    } else if ((m = APPROVAL.matcher(path)).matches() && method.equals("GET")) {
      ApiInput.query(call, "/api/approvals/{requestId}");
      call.json(
          200, ApiInput.found(queries.request(ApiInput.segment(m.group(1))), "approval request"));
    } else {
      return false;
    }
    return true;
  }

  private void approve(HttpCall call, String eventId, Principal p) throws IOException {
    JsonNode body = ApiInput.body(call, "/api/events/{eventId}/approve");
    List<String> vms = null;
    if (body.has("vms")) {
      vms = new ArrayList<>();
      for (JsonNode v : body.get("vms")) {
        vms.add(v.asText());
      }
    }
    ApprovalRequests.Accepted accepted =
        approvals.request(
            eventId,
            vms,
            body.path("reason").asText(null),
            p,
            call.header("Idempotency-Key"),
            "api",
            body.path("override").asBoolean(false));
    ApprovalRequest r = accepted.request();
    ObjectNode out = JsonSerde.JSON.createObjectNode();
    out.put("requestId", r.requestId());
    out.put("eventId", r.eventId());
    out.put("requestedBy", r.requestedBy());
    var commands = out.putObject("commands");
    r.vmIds().forEach(vm -> commands.put(vm, ApprovalRequest.commandId(r.requestId(), vm)));
    if (r.acknowledge() != null) {
      out.set("acknowledge", JsonSerde.JSON.valueToTree(r.acknowledge()));
    }
    var releases = out.putArray("releases");
    accepted.releases().forEach(releases::add);
    call.header("Location", "/api/approvals/" + r.requestId());
    call.json(202, out);
  }
}
