package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.auth.StaticTokens;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.rollout.RolloutVm;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.testing.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API over views the test fills: who may do what, what approvals check and audit, and that
 * every answer matches docs/fleet-openapi.yaml (and every route is documented there).
 */
class FleetApiTest {
  static final String EVENT = "A1B2C3D4-0000-4000-8000-00000000AAAA";
  static final String NEVER = "A1B2C3D4-0000-4000-8000-00000000EEEE";
  static final String APPROVER = "approver-token-0123456789";
  static final String READER = "reader-token-0123456789ab";
  static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  final MutableClock clock = new MutableClock(T0);
  final MapStore<VmView> vms = new MapStore<>();
  final MapStore<EventView> events = new MapStore<>();
  final MapStore<RequestView> requests = new MapStore<>();
  final MapStore<dev.sebridge.fleet.rollout.Rollout> rollouts = new MapStore<>();
  final MapStore<dev.sebridge.fleet.rollout.PolicyDecision> decisions = new MapStore<>();
  final MapStore<dev.sebridge.fleet.model.InventoryVm> inventory = new MapStore<>();
  final dev.sebridge.fleet.inventory.Coverage coverage =
      new dev.sebridge.fleet.inventory.Coverage();
  // Operators' approvals go to the rollouts topic, where the fleet-wide ledger decides them.
  final MockProducer<String, RolloutCommand> audit =
      new MockProducer<>(
          true, null, new StringSerializer(), new JsonSerde<>(RolloutCommand.class).serializer());
  final MockProducer<String, RolloutCommand> rolloutCommands =
      new MockProducer<>(
          true, null, new StringSerializer(), new JsonSerde<>(RolloutCommand.class).serializer());
  final HttpClient http = HttpClient.newHttpClient();
  final HttpLimits limits = HttpLimits.defaults();
  final Set<String> exercised = new HashSet<>();
  FleetServer server;

  @BeforeEach
  void start() throws Exception {
    for (String[] v :
        new String[][] {{"vm-1", "web-1", "1"}, {"vm-2", "web-2", "2"}, {"vm-3", "db-1", "3"}}) {
      vms.map.put(
          v[0],
          new VmView(
              v[0],
              v[1],
              null,
              "sub-1",
              "rg",
              "westeurope",
              v[2],
              v[1].startsWith("web") ? "web" : null,
              "0.1.0",
              T0,
              T0,
              T0,
              60,
              Map.of("total", 10L),
              v[0].equals("vm-3"),
              Set.of(EVENT.toLowerCase())));
    }
    Map<String, VmEventState> parts = new java.util.TreeMap<>();
    parts.put("vm-1", new VmEventState("vm-1", "web-1", "1", "web", "scheduled", null, T0, null));
    parts.put("vm-2", new VmEventState("vm-2", "web-2", "2", "web", "scheduled", null, T0, null));
    parts.put("vm-3", new VmEventState("vm-3", "db-1", "3", null, "started", null, T0, null));
    events.map.put(
        EVENT.toLowerCase(),
        new EventView(
            EVENT,
            "Reboot",
            "Platform",
            T0.plusSeconds(900),
            -1,
            "planned",
            List.of("web-1", "web-2", "db-1", "web-9"),
            T0,
            T0,
            null,
            parts));
    ApprovalRequest r =
        new ApprovalRequest("r1", EVENT, List.of("vm-1"), "why", "alice", T0, "api");
    requests.map.put(
        "r1",
        new RequestView(
            r,
            T0,
            Map.of(
                "vm-1",
                new RequestView.VmResult("fleet:r1:vm-1", "accepted", "accepted", "ok", T0))));
    events.map.put(
        NEVER.toLowerCase(),
        new EventView(
            NEVER,
            "Terminate",
            "Platform",
            T0.plusSeconds(900),
            -1,
            "",
            List.of("web-1"),
            T0,
            T0,
            null,
            Map.of(
                "vm-1",
                new VmEventState("vm-1", "web-1", "1", "web", "scheduled", null, T0, null))));
    decisions.map.put(
        NEVER.toLowerCase(),
        new PolicyDecision(NEVER, "90-never", 3, "never", false, "never approved", T0));
    RolloutSpec spec =
        new RolloutSpec(
            List.of(EVENT),
            "1",
            List.of("zone"),
            java.time.Duration.ofMinutes(2),
            java.time.Duration.ofMinutes(20));
    RolloutVm vm1 =
        new RolloutVm(
            "vm-1",
            "web-1",
            EVENT,
            "zone=1",
            RolloutVm.STARTED,
            false,
            1,
            "req-1",
            T0,
            T0,
            null,
            null,
            null,
            T0.plusSeconds(1200),
            false,
            null);
    for (String[] ro :
        new String[][] {
          {"r-halted", "halted"}, {"r-running", "running"}, {"r-done", "completed"}
        }) {
      rollouts.map.put(
          ro[0],
          new Rollout(
              ro[0],
              spec,
              "go",
              "alice",
              "api",
              T0,
              Rollout.State.of(ro[1]),
              ro[1].equals("halted")
                  ? new Rollout.Halt("vm-1", EVENT, "web-1 is not back in time", T0)
                  : null,
              Map.of("zone=1", 1),
              Map.of("vm-1", vm1),
              List.of(new Rollout.Wave(1, T0, List.of(EVENT), List.of("vm-1"))),
              List.of(new Rollout.Entry(T0, "alice", "created", "go"))));
    }
    // Azure's inventory: the three VMs, and vm-4 without an agent.
    for (String id : List.of("vm-1", "vm-2", "vm-3", "vm-4")) {
      inventory.map.put(
          id,
          new dev.sebridge.fleet.model.InventoryVm(
              id, null, id, "sub-1", "rg", "westeurope", "1", null, null, Map.of("tier", "web")));
      coverage.keyChanged(
          dev.sebridge.fleet.streams.FleetTopology.INVENTORY_VIEW, id, inventory.map.get(id));
    }
    vms.map.forEach(
        (id, v) -> coverage.keyChanged(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, id, v));
    FleetViews views =
        new FleetViews(() -> vms, () -> events, () -> requests, () -> rollouts, () -> decisions)
            .withInventory(() -> inventory);
    ApprovalRequests approvals = new ApprovalRequests(audit, "audit", views, clock);
    server =
        new FleetServer(
                "127.0.0.1",
                0,
                limits,
                StaticTokens.of(
                    Map.of(
                        APPROVER, new Principal("alice", Principal.Role.APPROVER),
                        READER, new Principal("dashboard", Principal.Role.READER))),
                new RateLimits(limits.writesPerMinute()),
                List::of)
            .route(
                new RolloutApi(
                    new RolloutRequests(rolloutCommands, "rollouts", views, clock),
                    views,
                    new Policies(3, List.of()),
                    clock))
            .route(
                new CoreApi(
                    new FleetQueries(views, clock),
                    new CoverageQueries(views, coverage, () -> T0, clock),
                    approvals,
                    () -> "sebridge_fleet_open_events 1\n"))
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  HttpResponse<String> call(
      String method, String path, String token, JsonNode body, String template) throws Exception {
    exercised.add(method + " " + template);
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body.toString()));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  ObjectNode rollout(String reason, String maxUnavailable, String... eventIds) {
    ObjectNode n = JsonSerde.JSON.createObjectNode().put("reason", reason);
    n.put("maxUnavailable", maxUnavailable).put("settle", "2m").put("timeout", "20m");
    n.putArray("groupBy").add("zone");
    if (eventIds.length > 0) {
      var a = n.putArray("eventIds");
      for (String e : eventIds) {
        a.add(e);
      }
    }
    return n;
  }

  ObjectNode action(String reason, String vmId) {
    ObjectNode n = JsonSerde.JSON.createObjectNode().put("reason", reason);
    if (vmId != null) {
      n.put("vmId", vmId);
    }
    return n;
  }

  ObjectNode approval(String reason, String... vmIds) {
    ObjectNode n = JsonSerde.JSON.createObjectNode();
    if (reason != null) {
      n.put("reason", reason);
    }
    if (vmIds.length > 0) {
      var a = n.putArray("vms");
      for (String v : vmIds) {
        a.add(v);
      }
    }
    return n;
  }

  @Test
  void coverageCountsTheInventorysVmsByAgentAndListsThoseWithoutOne() throws Exception {
    JsonNode c =
        JsonSerde.JSON.readTree(call("GET", "/api/coverage", READER, null, "/api/coverage").body());
    assertThat(c.get("inventory").asInt()).isEqualTo(4);
    assertThat(c.get("live").asInt()).isEqualTo(2);
    assertThat(c.get("silent").asInt()).as("vm-3's agent is silent").isEqualTo(1);
    assertThat(c.get("withoutAgent").asInt()).isEqualTo(1);
    assertThat(c.get("unknown").asInt()).isZero();
    assertThat(c.get("refreshedAt").asText()).isEqualTo(T0.toString());
    JsonNode without =
        JsonSerde.JSON.readTree(
            call("GET", "/api/coverage/without-agent", READER, null, "/api/coverage/without-agent")
                .body());
    assertThat(without.get("vms")).extracting(v -> v.get("vmId").asText()).containsExactly("vm-4");
    // Paged from the coverage's own ordered set, each VM read by key: no walk of the inventory.
    for (String id : List.of("vm-5", "vm-6")) {
      inventory.map.put(
          id,
          new dev.sebridge.fleet.model.InventoryVm(
              id, null, id, "sub-1", "rg", "westeurope", "1", null, null, Map.of()));
      coverage.keyChanged(
          dev.sebridge.fleet.streams.FleetTopology.INVENTORY_VIEW, id, inventory.map.get(id));
    }
    int scans = inventory.scans.get();
    List<String> paged = new ArrayList<>();
    String path = "/api/coverage/without-agent?limit=2";
    for (int page = 0; page < 5 && path != null; page++) {
      JsonNode p =
          JsonSerde.JSON.readTree(
              call("GET", path, READER, null, "/api/coverage/without-agent").body());
      p.get("vms").forEach(v -> paged.add(v.get("vmId").asText()));
      path =
          p.has("next")
              ? "/api/coverage/without-agent?limit=2&cursor=" + p.get("next").asText()
              : null;
    }
    assertThat(paged).containsExactly("vm-4", "vm-5", "vm-6");
    assertThat(inventory.scans.get()).as("no scan of the inventory").isEqualTo(scans);
    for (String id : List.of("vm-5", "vm-6")) {
      inventory.map.remove(id);
      coverage.keyChanged(dev.sebridge.fleet.streams.FleetTopology.INVENTORY_VIEW, id, null);
    }

    // Agents reporting a vmId Azure does not list, or a listed one spelt otherwise: unknown.
    coverage.keyChanged(
        dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, "rogue-1", vms.map.get("vm-1"));
    coverage.keyChanged(
        dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, "VM-1", vms.map.get("vm-1"));
    c = JsonSerde.JSON.readTree(call("GET", "/api/coverage", READER, null, "/api/coverage").body());
    assertThat(c.get("unknown").asInt()).isEqualTo(2);
    assertThat(c.get("live").asInt()).isEqualTo(2);
    coverage.keyChanged(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, "rogue-1", null);
    coverage.keyChanged(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, "VM-1", null);
    coverage.keyChanged(dev.sebridge.fleet.streams.FleetTopology.INVENTORY_VIEW, "vm-4", null);
    c = JsonSerde.JSON.readTree(call("GET", "/api/coverage", READER, null, "/api/coverage").body());
    assertThat(c.get("unknown").asInt()).isZero();
    assertThat(c.get("inventory").asInt()).isEqualTo(3);
    assertThat(c.get("withoutAgent").asInt()).isZero();
  }

  @Test
  void listsComeAPageAtATimeAndTheCursorLeadsToTheRest() throws Exception {
    List<String> ids = new ArrayList<>();
    String path = "/api/events?limit=1";
    for (int pages = 1; ; pages++) {
      HttpResponse<String> r = call("GET", path, READER, null, "/api/events");
      assertThat(r.statusCode()).isEqualTo(200);
      JsonNode page = JsonSerde.JSON.readTree(r.body());
      assertThat(page.get("events").size()).isEqualTo(1);
      ids.add(page.get("events").get(0).get("eventId").asText());
      if (!page.has("next")) {
        assertThat(pages).isEqualTo(2);
        break;
      }
      path = "/api/events?limit=1&cursor=" + page.get("next").asText();
    }
    assertThat(ids).containsExactly(EVENT, NEVER);
    JsonNode vmsPage =
        JsonSerde.JSON.readTree(call("GET", "/api/vms?limit=2", READER, null, "/api/vms").body());
    assertThat(vmsPage.get("vms")).hasSize(2);
    assertThat(vmsPage.has("next")).isTrue();
  }

  /**
   * The events' filters by a VM's status and resource group (only those VMs counted, events without
   * any left out) and by text (the event's id, description or a VM name it lists).
   */
  @Test
  void eventsFilterByStatusResourceGroupAndText() throws Exception {
    java.util.function.Function<String, JsonNode> list =
        q -> {
          try {
            HttpResponse<String> r = call("GET", "/api/events?" + q, READER, null, "/api/events");
            assertThat(r.statusCode()).as(q).isEqualTo(200);
            return JsonSerde.JSON.readTree(r.body()).get("events");
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    JsonNode started = list.apply("status=started");
    assertThat(started).hasSize(1);
    assertThat(started.get(0).get("eventId").asText()).isEqualTo(EVENT);
    assertThat(started.get(0).get("vmCount").asInt()).isEqualTo(1); // vm-3 alone
    assertThat(list.apply("status=scheduled")).hasSize(2);
    assertThat(list.apply("status=completed")).isEmpty();
    assertThat(list.apply("resourceGroup=RG")).hasSize(2);
    assertThat(list.apply("resourceGroup=other")).isEmpty();
    assertThat(list.apply("resourceGroup=rg&status=started")).hasSize(1);
    assertThat(list.apply("text=PLANNED"))
        .singleElement()
        .satisfies(e -> assertThat(e.get("eventId").asText()).isEqualTo(EVENT));
    assertThat(list.apply("text=web-9")).hasSize(1); // a name only the event lists
    assertThat(list.apply("text=eeee"))
        .singleElement()
        .satisfies(e -> assertThat(e.get("eventId").asText()).isEqualTo(NEVER));
    assertThat(list.apply("text=web-1")).hasSize(2);
    assertThat(list.apply("text=nothing-like-it")).isEmpty();
    HttpResponse<String> bad =
        call("GET", "/api/events?status=sleeping", READER, null, "/api/events");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JsonSerde.JSON.readTree(bad.body()).get("error").asText()).contains("status");
  }

  /**
   * VMs filter by zone, scale set, resource group and text (vmId or name), and by their part in an
   * open event (its type and source, their status in it).
   */
  @Test
  void vmsFilterByZoneScaleSetResourceGroupAndText() throws Exception {
    // An open Freeze that vm-1 is done with and vm-2 is not: vm-1 is not "in" it any more.
    Map<String, VmEventState> freeze = new java.util.TreeMap<>();
    freeze.put("vm-1", new VmEventState("vm-1", "web-1", "1", "web", "completed", null, T0, null));
    freeze.put("vm-2", new VmEventState("vm-2", "web-2", "2", "web", "scheduled", null, T0, null));
    String frozen = "A1B2C3D4-0000-4000-8000-00000000FFFF";
    events.map.put(
        frozen.toLowerCase(),
        new EventView(
            frozen,
            "Freeze",
            "Platform",
            T0.plusSeconds(900),
            -1,
            "",
            List.of("web-1", "web-2"),
            T0,
            T0,
            null,
            freeze));
    Map<String, List<String>> filtered = new java.util.LinkedHashMap<>();
    filtered.put("zone=2", List.of("vm-2"));
    filtered.put("scaleSet=WEB", List.of("vm-1", "vm-2"));
    filtered.put("resourceGroup=RG", List.of("vm-1", "vm-2", "vm-3"));
    filtered.put("resourceGroup=other", List.of());
    filtered.put("text=DB", List.of("vm-3"));
    filtered.put("text=vm-1", List.of("vm-1"));
    filtered.put("scaleSet=web&zone=1", List.of("vm-1"));
    // By their part in an open event: its type, source, and the VM's status in it.
    filtered.put("type=REBOOT", List.of("vm-1", "vm-2", "vm-3"));
    filtered.put("type=Freeze", List.of("vm-2")); // vm-1's part is over
    filtered.put("type=Freeze&status=completed", List.of("vm-1"));
    filtered.put("type=Bogus", List.of());
    filtered.put("source=user", List.of());
    filtered.put("status=started", List.of("vm-3"));
    filtered.put("status=scheduled&zone=2", List.of("vm-2"));
    filtered.put("type=Reboot&source=Platform&status=completed", List.of());
    for (Map.Entry<String, List<String>> f : filtered.entrySet()) {
      HttpResponse<String> r = call("GET", "/api/vms?" + f.getKey(), READER, null, "/api/vms");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(JsonSerde.JSON.readTree(r.body()).get("vms"))
          .as(f.getKey())
          .extracting(x -> x.get("vmId").asText())
          .containsExactlyElementsOf(f.getValue());
    }
  }

  /**
   * Approval requests come a page at a time (in id order), by event, asker, state, a VM they name,
   * where their VMs are, and text.
   */
  @Test
  void approvalsComeAPageAtATimeByEventAskerStateAndText() throws Exception {
    requests.map.put(
        "r2",
        new RequestView(
            new ApprovalRequest(
                "r2",
                NEVER,
                List.of("vm-1"),
                "hotfix",
                "bob",
                T0,
                "api",
                false,
                "a rollout holds the event",
                false,
                null),
            null,
            Map.of()));
    requests.map.put(
        "r3",
        new RequestView(
            new ApprovalRequest("r3", EVENT, List.of("vm-2"), "patch night", "alice", T0, "api"),
            T0,
            Map.of("vm-2", new RequestView.VmResult("fleet:r3:vm-2", null, null, null, null))));
    List<String> ids = new ArrayList<>();
    String path = "/api/approvals?limit=2";
    for (int pages = 1; pages <= 10; pages++) {
      HttpResponse<String> r = call("GET", path, READER, null, "/api/approvals");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode page = JsonSerde.JSON.readTree(r.body());
      page.get("approvals").forEach(x -> ids.add(x.get("request").get("requestId").asText()));
      if (!page.has("next")) {
        break;
      }
      path = "/api/approvals?limit=2&cursor=" + page.get("next").asText();
    }
    assertThat(ids).containsExactly("r1", "r2", "r3");
    Map<String, List<String>> filtered = new java.util.LinkedHashMap<>();
    filtered.put("state=refused", List.of("r2"));
    filtered.put("state=waiting", List.of("r3"));
    filtered.put("state=complete", List.of("r1"));
    filtered.put("eventId=" + NEVER.toLowerCase(), List.of("r2"));
    filtered.put("requestedBy=BOB", List.of("r2"));
    filtered.put("text=NIGHT", List.of("r3"));
    filtered.put("eventId=" + EVENT + "&requestedBy=alice", List.of("r1", "r3"));
    // By a VM it names, or where its VMs are (their views), and by origin in the text.
    filtered.put("vmId=VM-2", List.of("r3"));
    filtered.put("zone=1", List.of("r1", "r2"));
    filtered.put("scaleSet=WEB&zone=2", List.of("r3"));
    filtered.put("resourceGroup=rg", List.of("r1", "r2", "r3"));
    filtered.put("resourceGroup=other", List.of());
    filtered.put("zone=3", List.of());
    filtered.put("text=API", List.of("r1", "r2", "r3"));
    for (Map.Entry<String, List<String>> f : filtered.entrySet()) {
      JsonNode page =
          JsonSerde.JSON.readTree(
              call("GET", "/api/approvals?" + f.getKey(), READER, null, "/api/approvals").body());
      assertThat(page.get("approvals"))
          .as(f.getKey())
          .extracting(x -> x.get("request").get("requestId").asText())
          .containsExactlyElementsOf(f.getValue());
    }
    for (String refused :
        List.of("/api/approvals?state=lost", "/api/approvals?limit=0", "/api/approvals?by=bob")) {
      assertThat(call("GET", refused, READER, null, "/api/approvals").statusCode())
          .as(refused)
          .isEqualTo(400);
    }
  }

  /** Rollouts come a page at a time (in id order), by state, by an event they hold and by text. */
  @Test
  void rolloutsComeAPageAtATimeByStateAndText() throws Exception {
    List<String> ids = new ArrayList<>();
    String path = "/api/rollouts?limit=2";
    for (int pages = 1; pages <= 10; pages++) {
      HttpResponse<String> r = call("GET", path, READER, null, "/api/rollouts");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode page = JsonSerde.JSON.readTree(r.body());
      assertThat(page.get("rollouts").size()).isLessThanOrEqualTo(2);
      page.get("rollouts").forEach(x -> ids.add(x.get("id").asText()));
      if (!page.has("next")) {
        break;
      }
      path = "/api/rollouts?limit=2&cursor=" + page.get("next").asText();
    }
    assertThat(ids).containsExactlyElementsOf(new java.util.TreeSet<>(rollouts.map.keySet()));
    assertThat(ids).contains("r-halted", "r-running", "r-done");
    JsonNode halted =
        JsonSerde.JSON.readTree(
            call("GET", "/api/rollouts?state=halted", READER, null, "/api/rollouts").body());
    assertThat(halted.get("rollouts"))
        .extracting(x -> x.get("id").asText())
        .containsExactly("r-halted");
    JsonNode byText =
        JsonSerde.JSON.readTree(
            call("GET", "/api/rollouts?text=RUNNING", READER, null, "/api/rollouts").body());
    assertThat(byText.get("rollouts"))
        .extracting(x -> x.get("id").asText())
        .containsExactly("r-running");
    Rollout done = rollouts.map.get("r-done");
    rollouts.map.put(
        "r-other",
        new Rollout(
            "r-other",
            new RolloutSpec(List.of("EV-OTHER", "ev-third"), "1", List.of("zone"), null, null),
            "another update",
            "bob",
            "api",
            T0,
            Rollout.State.of("completed"),
            null,
            Map.of(),
            Map.of(),
            List.of(),
            List.of(done.history().get(0))));
    try {
      for (Map.Entry<String, List<String>> byEvent :
          Map.of(
                  EVENT.toLowerCase(),
                  List.of("r-done", "r-halted", "r-running"),
                  "ev-other",
                  List.of("r-other"),
                  "EV-THIRD",
                  List.of("r-other"),
                  "ev-none",
                  List.<String>of())
              .entrySet()) {
        JsonNode page =
            JsonSerde.JSON.readTree(
                call(
                        "GET",
                        "/api/rollouts?eventId=" + byEvent.getKey(),
                        READER,
                        null,
                        "/api/rollouts")
                    .body());
        assertThat(page.get("rollouts"))
            .as(byEvent.getKey())
            .extracting(x -> x.get("id").asText())
            .containsExactlyElementsOf(byEvent.getValue());
      }
      // By what they roll out: r-other's events are gone from the views, and it has no VMs.
      List<String> three = List.of("r-done", "r-halted", "r-running");
      for (Map.Entry<String, List<String>> byKind :
          Map.of(
                  "type=reboot",
                  three,
                  "type=Terminate",
                  List.<String>of(),
                  "source=PLATFORM&type=Reboot",
                  three,
                  "source=User",
                  List.<String>of(),
                  "zone=1",
                  three,
                  "zone=2",
                  List.<String>of(),
                  "scaleSet=WEB&zone=1",
                  three,
                  "resourceGroup=RG&state=halted",
                  List.of("r-halted"))
              .entrySet()) {
        HttpResponse<String> r =
            call("GET", "/api/rollouts?" + byKind.getKey(), READER, null, "/api/rollouts");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JsonSerde.JSON.readTree(r.body()).get("rollouts"))
            .as(byKind.getKey())
            .extracting(x -> x.get("id").asText())
            .containsExactlyElementsOf(byKind.getValue());
      }
    } finally {
      rollouts.map.remove("r-other");
    }
    for (String refused :
        List.of(
            "/api/rollouts?limit=101",
            "/api/rollouts?state=paused",
            "/api/rollouts?cursor=AA",
            "/api/rollouts?eventId=",
            "/api/rollouts?zone=",
            "/api/rollouts?type=",
            "/api/rollouts?source=" + "x".repeat(65),
            "/api/rollouts?resourceGroup=" + "r".repeat(91))) {
      assertThat(call("GET", refused, READER, null, "/api/rollouts").statusCode())
          .as(refused)
          .isEqualTo(400);
    }
  }

  /**
   * A cursor is the list's own: one of another list, or one changed or cut short on its way, is a
   * 400, not read as some other place in the list (where the walk would start again or skip).
   */
  @Test
  void aCursorOfAnotherListOrChangedOnItsWayIsA400() throws Exception {
    String vmsNext =
        JsonSerde.JSON
            .readTree(call("GET", "/api/vms?limit=1", READER, null, "/api/vms").body())
            .get("next")
            .asText();
    String eventsNext =
        JsonSerde.JSON
            .readTree(call("GET", "/api/events?limit=1", READER, null, "/api/events").body())
            .get("next")
            .asText();
    assertThat(
            call("GET", "/api/events?cursor=" + eventsNext, READER, null, "/api/events")
                .statusCode())
        .isEqualTo(200);
    Map<String, String> refused = new java.util.LinkedHashMap<>();
    refused.put("/api/events?cursor=" + vmsNext, "another list");
    refused.put("/api/vms?cursor=" + eventsNext, "another list");
    refused.put("/api/events?cursor=AA", "not one this API gave");
    refused.put(
        "/api/events?cursor=" + eventsNext.substring(0, eventsNext.length() - 2),
        "not one this API gave");
    char[] changed = eventsNext.toCharArray();
    changed[8] = changed[8] == 'A' ? 'B' : 'A';
    refused.put("/api/events?cursor=" + new String(changed), "not one this API gave");
    for (Map.Entry<String, String> q : refused.entrySet()) {
      HttpResponse<String> r =
          call("GET", q.getKey(), READER, null, q.getKey().substring(0, q.getKey().indexOf('?')));
      assertThat(r.statusCode()).as(q.getKey()).isEqualTo(400);
      assertThat(JsonSerde.JSON.readTree(r.body()).get("error").asText())
          .as(q.getKey())
          .contains(q.getValue());
    }
  }

  String campaignOf(String eventId) {
    return Campaigns.of(events.map.values()).stream()
        .filter(c -> c.events().stream().anyMatch(e -> e.eventId().equals(eventId)))
        .findFirst()
        .orElseThrow()
        .id();
  }

  /**
   * A host update as Azure sends it: one-VM events of one type and description, each first seen
   * within the hour of the one before, are one campaign (E-3 is 80 minutes after the first, 50
   * after E-2); one first seen an hour and a second after the last is another. The id holds when
   * the first event starts (its NotBefore is then empty).
   */
  @Test
  void eventsOfOneKindSeenCloseTogetherAreOneCampaignAndItsScheduledEventsAreWhatItRollsOut()
      throws Exception {
    EventView first = events.map.get(EVENT.toLowerCase());
    Map<String, Long> seen = new java.util.LinkedHashMap<>();
    seen.put("E-2", 1800L);
    seen.put("E-3", 4800L);
    seen.put("E-9", 4800L + 3601);
    for (Map.Entry<String, Long> e : seen.entrySet()) {
      events.map.put(
          e.getKey().toLowerCase(),
          new EventView(
              e.getKey(),
              "Reboot",
              "Platform",
              first.notBefore(),
              -1,
              "planned",
              List.of("web-9"),
              T0.plusSeconds(e.getValue()),
              T0.plusSeconds(e.getValue()),
              null,
              Map.of(
                  "vm-9",
                  new VmEventState(
                      "vm-9",
                      "web-9",
                      "1",
                      // Azure spells one scale set in two cases: one count
                      e.getKey().equals("E-3") ? "WEB" : "web",
                      "scheduled",
                      null,
                      T0,
                      null))));
    }
    JsonNode list =
        JsonSerde.JSON.readTree(
            call("GET", "/api/campaigns", READER, null, "/api/campaigns").body());
    String id = campaignOf(EVENT);
    assertThat(list.get("campaigns").findValuesAsText("campaignId"))
        .containsExactlyInAnyOrder(id, campaignOf("E-9"), campaignOf(NEVER));
    assertThat(campaignOf("E-3")).isEqualTo(id);
    JsonNode one =
        JsonSerde.JSON.readTree(
            call("GET", "/api/campaigns/" + id, READER, null, "/api/campaigns/{campaignId}")
                .body());
    List<String> ids = new ArrayList<>();
    one.get("eventIds").forEach(n -> ids.add(n.asText()));
    assertThat(ids).containsExactly(EVENT, "E-2", "E-3");
    List<String> scheduled = new ArrayList<>();
    one.get("scheduledEventIds").forEach(n -> scheduled.add(n.asText()));
    assertThat(scheduled).containsExactly(EVENT, "E-2", "E-3");
    assertThat(one.get("vmCount").asInt()).isEqualTo(5);
    List<String> sets = new ArrayList<>();
    one.get("scaleSets").fieldNames().forEachRemaining(sets::add);
    assertThat(sets).as("one count per scale set, whatever its case").contains("web");
    assertThat(sets.stream().map(n -> n.toLowerCase(java.util.Locale.ROOT)).distinct())
        .hasSameSizeAs(sets);
    int parts = 0;
    for (JsonNode n : one.get("scaleSets")) {
      parts += n.asInt();
    }
    assertThat(parts).isEqualTo(5);
    // The first event starts: Azure empties its NotBefore; the campaign keeps its id.
    events.map.put(
        EVENT.toLowerCase(),
        new EventView(
            EVENT,
            first.eventType(),
            first.eventSource(),
            null,
            -1,
            first.description(),
            first.resources(),
            first.firstSeenAt(),
            T0.plusSeconds(60),
            null,
            first.vms()));
    assertThat(campaignOf(EVENT)).isEqualTo(id);
    assertThat(
            call("GET", "/api/campaigns/" + id, READER, null, "/api/campaigns/{campaignId}")
                .statusCode())
        .isEqualTo(200);
  }

  /**
   * The campaigns' list takes what its contract says and refuses the rest (400, JSON) before
   * reading anything: a limit past 1,000 or not a number, a field it does not take, a field given
   * twice, a cursor of another list.
   */
  @Test
  void theCampaignsListRefusesWhatItsContractDoesNotTake() throws Exception {
    String eventsCursor =
        JsonSerde.JSON
            .readTree(call("GET", "/api/events?limit=1", READER, null, "/api/events").body())
            .path("next")
            .asText();
    assertThat(eventsCursor).isNotEmpty();
    for (String query :
        List.of(
            "limit=1001",
            "limit=ten",
            "zone=1",
            "type=Reboot&type=Freeze",
            "text=",
            "cursor=" + eventsCursor)) {
      HttpResponse<String> r =
          call("GET", "/api/campaigns?" + query, READER, null, "/api/campaigns");
      assertThat(r.statusCode()).as(query + ": " + r.body()).isEqualTo(400);
      assertThat(JsonSerde.JSON.readTree(r.body()).path("error").asText()).as(query).isNotEmpty();
    }
    HttpResponse<String> ok =
        call(
            "GET",
            "/api/campaigns?type=reboot&source=platform&text=PLANNED&limit=1000",
            READER,
            null,
            "/api/campaigns");
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
  }

  /**
   * A resume names the halt it resumes: the one given (the rollout's halt.at as read), 409 when the
   * rollout is not halted so; without one, the halt this instance's view shows. The command carries
   * it, and the rollout processor resumes nothing else.
   */
  @Test
  void aResumeNamesTheHaltItResumes() throws Exception {
    String path = "/api/rollouts/r-halted/resume";
    String template = "/api/rollouts/{rolloutId}/resume";
    HttpResponse<String> stale =
        call(
            "POST",
            path,
            APPROVER,
            action("back", null).put("halt", "2026-11-28T09:00:00Z"),
            template);
    assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
    assertThat(stale.body()).contains("not halted at").contains("web-1 is not back in time");
    HttpResponse<String> bad =
        call("POST", path, APPROVER, action("back", null).put("halt", "yesterday"), template);
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
    assertThat(rolloutCommands.history()).isEmpty();

    HttpResponse<String> named =
        call("POST", path, APPROVER, action("back", null).put("halt", T0.toString()), template);
    assertThat(named.statusCode()).as(named.body()).isEqualTo(202);
    HttpResponse<String> implied = call("POST", path, APPROVER, action("back", null), template);
    assertThat(implied.statusCode()).as(implied.body()).isEqualTo(202);
    assertThat(rolloutCommands.history()).extracting(r -> r.value().halt()).containsExactly(T0, T0);
  }

  /** A filter misspelt would list everything: the contract refuses it, and a wrong type. */
  @Test
  void aQueryTheContractRefusesIsA400NamingIt() throws Exception {
    Map<String, String> refused = new java.util.LinkedHashMap<>();
    refused.put("/api/events?open=yes", "open");
    refused.put("/api/events?scaleset=web", "scaleset");
    refused.put("/api/events?limit=0", "limit");
    refused.put("/api/events?limit=1001", "limit");
    refused.put("/api/events?limit=ten", "limit");
    refused.put("/api/events?open=true&open=false", "open");
    refused.put("/api/events?cursor=***", "cursor");
    refused.put("/api/events?type=", "type");
    refused.put("/api/vms?silent=1", "silent");
    refused.put("/api/vms?region=1", "region");
    refused.put("/api/vms?zone=", "zone");
    refused.put("/api/events/" + EVENT + "?verbose=true", "verbose");
    refused.put("/api/approvals/r1?x=", "x");
    for (Map.Entry<String, String> q : refused.entrySet()) {
      String template =
          q.getKey().startsWith("/api/events/")
              ? "/api/events/{eventId}"
              : q.getKey().startsWith("/api/approvals/")
                  ? "/api/approvals/{requestId}"
                  : q.getKey().substring(0, q.getKey().indexOf('?'));
      HttpResponse<String> r = call("GET", q.getKey(), READER, null, template);
      assertThat(r.statusCode()).as(q.getKey()).isEqualTo(400);
      assertThat(JsonSerde.JSON.readTree(r.body()).get("error").asText())
          .as(q.getKey())
          .contains(q.getValue());
    }
    // Every GET of the contract refuses a query it does not give (its template's parameters
    // replaced), and says so; and each one behind a token may answer 429 when the client's address
    // spent its failing tokens (BearerGate), and says so.
    JsonNode doc = contract();
    java.util.Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields();
    while (paths.hasNext()) {
      Map.Entry<String, JsonNode> p = paths.next();
      String template = p.getKey();
      if (!p.getValue().has("get") || template.equals("/healthz") || template.equals("/readyz")) {
        continue;
      }
      String path = template.replaceAll("\\{[^}]+}", "x-1");
      HttpResponse<String> r = call("GET", path + "?unasked=1", READER, null, template);
      assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(400);
      assertThat(JsonSerde.JSON.readTree(r.body()).get("error").asText()).contains("unasked");
      for (String status : List.of("400", "429")) {
        assertThat(p.getValue().at("/get/responses/" + status).isMissingNode())
            .as("%s documented for GET %s", status, template)
            .isFalse();
      }
    }
  }

  /**
   * A fault the API does not expect is 500 with a JSON error that says nothing of it, and every
   * operation of the contract declares that answer (before, none did). A view missing from the
   * topology is such a fault (it was a 503 to try again for ever); a closed view, a request that
   * outlived the server's stop, is a 503 to try again.
   */
  @Test
  void anUnexpectedFaultIsA500TheContractDeclares() throws Exception {
    vms.failing.add("vm-broken");
    try {
      HttpResponse<String> r = call("GET", "/api/vms/vm-broken", READER, null, "/api/vms/{vmId}");
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(JsonSerde.JSON.readTree(r.body()).path("error").asText())
          .isEqualTo("internal error");
    } finally {
      vms.failing.clear();
    }
    // A view the topology does not have is a wiring fault, not a moment to wait out: 500.
    vms.unknown.add("vm-unwired");
    try {
      HttpResponse<String> r = call("GET", "/api/vms/vm-unwired", READER, null, "/api/vms/{vmId}");
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(r.headers().firstValue("Retry-After")).isEmpty();
    } finally {
      vms.unknown.clear();
    }
    // A closed view (a request that outlived the server's stop) is no fault: 503, try again.
    vms.closed.add("vm-closing");
    try {
      HttpResponse<String> r = call("GET", "/api/vms/vm-closing", READER, null, "/api/vms/{vmId}");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(JsonSerde.JSON.readTree(r.body()).path("error").asText()).contains("try again");
    } finally {
      vms.closed.clear();
    }
    JsonNode doc = contract();
    java.util.Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields();
    int operations = 0;
    while (paths.hasNext()) {
      Map.Entry<String, JsonNode> p = paths.next();
      java.util.Iterator<Map.Entry<String, JsonNode>> ops = p.getValue().fields();
      while (ops.hasNext()) {
        Map.Entry<String, JsonNode> op = ops.next();
        if (!op.getValue().has("responses")) {
          continue; // (path-level parameters)
        }
        operations++;
        assertThat(op.getValue().at("/responses/500").isMissingNode())
            .as("500 documented for %s %s", op.getKey(), p.getKey())
            .isFalse();
      }
    }
    assertThat(operations).isGreaterThan(20);
  }

  /** At 100,000 VMs a scan of the VM views is 100,000 JSON documents: an event reads its own. */
  @Test
  void anEventIsAnsweredFromItsOwnVmsReadByKeyNotFromEveryVm() throws Exception {
    vms.map.put("vm-other", vms.map.get("vm-1"));
    vms.scans.set(0);
    vms.gets.clear();
    HttpResponse<String> one =
        call("GET", "/api/events/" + EVENT, READER, null, "/api/events/{eventId}");
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(JsonSerde.JSON.readTree(one.body()).get("silentAgents").asInt()).isEqualTo(1);
    HttpResponse<String> list = call("GET", "/api/events?open=true", READER, null, "/api/events");
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(vms.scans.get()).isZero();
    assertThat(vms.gets).containsOnly("vm-1", "vm-2", "vm-3").doesNotContain("vm-other");
  }

  @Test
  void withoutAValidTokenOnlyHealthAnswers() throws Exception {
    for (String path : List.of("/api/events", "/api/vms", "/metrics", "/api/approvals/r1")) {
      HttpResponse<String> none = call("GET", path, null, null, path);
      assertThat(none.statusCode()).as(path).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"sebridge-fleet\"");
      assertThat(call("GET", path, "forged-token-0123456789", null, path).statusCode())
          .isEqualTo(401);
    }
    assertThat(call("GET", "/healthz", null, null, "/healthz").statusCode()).isEqualTo(200);
    assertThat(call("GET", "/readyz", null, null, "/readyz").statusCode()).isEqualTo(200);
  }

  @Test
  void headIsAnsweredAsGetWithoutABodyAndHealthTakesOnlyGetAndHead() throws Exception {
    java.util.logging.Logger jdk = java.util.logging.Logger.getLogger("com.sun.net.httpserver");
    List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Handler h =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord r) {
            if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
              warnings.add(r.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jdk.addHandler(h);
    try {
      for (String[] c :
          new String[][] {{"/healthz", null}, {"/readyz", null}, {"/api/events", READER}}) {
        HttpResponse<String> get = call("GET", c[0], c[1], null, c[0]);
        HttpResponse<String> head = call("HEAD", c[0], c[1], null, c[0]);
        assertThat(head.statusCode()).as(c[0]).isEqualTo(200);
        assertThat(head.body()).as(c[0]).isEmpty();
        assertThat(head.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(get.body()).isNotEmpty();
      }
      assertThat(call("HEAD", "/api/events", null, null, "/api/events").statusCode())
          .isEqualTo(401);
      for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
        for (String path : List.of("/healthz", "/readyz")) {
          HttpResponse<String> r = call(method, path, null, null, path);
          assertThat(r.statusCode()).as(method + " " + path).isEqualTo(405);
          assertThat(r.headers().firstValue("Allow")).hasValue("GET, HEAD");
          assertThat(JsonSerde.JSON.readTree(r.body()).path("error").asText())
              .contains("only GET and HEAD");
        }
      }
    } finally {
      jdk.removeHandler(h);
    }
    assertThat(warnings).as("the JDK server's warnings").isEmpty();
  }

  /**
   * A method a path of the API does not take is 405 with the methods it takes in {@code Allow}, as
   * the contract states them (RFC 9110 requires the header); a path the API does not have is 404.
   * Before, both were 405 without {@code Allow}. A reader gets the same (before, 403: the role was
   * checked before the route).
   */
  @Test
  void aMethodAPathDoesNotTakeIs405WithAllowAndAnUnknownPathIs404() throws Exception {
    Map<String, String> allow =
        Map.of(
            "DELETE /api/events",
            "GET, HEAD",
            "POST /api/events/" + EVENT,
            "GET, HEAD",
            "GET /api/events/" + EVENT + "/approve",
            "POST",
            "PUT /api/rollouts",
            "GET, HEAD, POST",
            "DELETE /api/rollouts/r-1",
            "GET, HEAD",
            "POST /metrics",
            "GET, HEAD");
    for (Map.Entry<String, String> e : allow.entrySet()) {
      String[] mp = e.getKey().split(" ");
      for (String token : List.of(APPROVER, READER)) {
        HttpResponse<String> r = call(mp[0], mp[1], token, null, mp[1]);
        assertThat(r.statusCode()).as(e.getKey()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).as(e.getKey()).hasValue(e.getValue());
        assertThat(JsonSerde.JSON.readTree(r.body()).path("error").asText())
            .contains("no such route");
      }
    }
    // A reader's write to a path that takes it is still refused for its role.
    String approve = "/api/events/" + EVENT + "/approve";
    assertThat(call("POST", approve, READER, null, approve).statusCode()).isEqualTo(403);
    for (String path : List.of("/api/nonsense", "/api/events/" + EVENT + "/nonsense", "/api/")) {
      HttpResponse<String> r = call("GET", path, APPROVER, null, path);
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(r.headers().firstValue("Allow")).as(path).isEmpty();
    }
    assertThat(call("DELETE", "/api/events", null, null, "/api/events").statusCode())
        .as("without a token: 401 first")
        .isEqualTo(401);
  }

  @Test
  void aBodyTheContractRefusesIsA400NamingTheFieldAndNothingIsAuditedOrSent() throws Exception {
    String approve = "/api/events/{eventId}/approve";
    String path = "/api/events/" + EVENT + "/approve";
    Map<String, ObjectNode> refused = new java.util.LinkedHashMap<>();
    refused.put("vms", approval("go").put("vms", "vm-1"));
    refused.put("reason", approval(null, "vm-1").put("reason", 7));
    ObjectNode empty = approval("go");
    empty.putArray("vms");
    refused.put("vms ", empty);
    refused.put("vmz", approval("go").put("vmz", "vm-1"));
    refused.put("override", approval("go").put("override", "yes"));
    for (Map.Entry<String, ObjectNode> c : refused.entrySet()) {
      HttpResponse<String> r = call("POST", path, APPROVER, c.getValue(), approve);
      assertThat(r.statusCode()).as("%s: %s", c.getValue(), r.body()).isEqualTo(400);
      assertThat(JsonSerde.JSON.readTree(r.body()).path("error").asText())
          .contains(c.getKey().trim());
    }
    ObjectNode stringIds = rollout("go", "1");
    stringIds.put("eventIds", EVENT);
    ObjectNode numericLimit = rollout("go", "1", EVENT);
    numericLimit.put("maxUnavailable", 2);
    ObjectNode unknown = rollout("go", "1", EVENT);
    unknown.put("maxUnavailble", "2");
    for (ObjectNode body : List.of(stringIds, numericLimit, unknown)) {
      HttpResponse<String> r = call("POST", "/api/rollouts", APPROVER, body, "/api/rollouts");
      assertThat(r.statusCode()).as("%s: %s", body, r.body()).isEqualTo(400);
    }
    HttpResponse<String> action =
        call(
            "POST",
            "/api/rollouts/r-halted/resume",
            APPROVER,
            action("back", null).put("force", true),
            "/api/rollouts/{rolloutId}/resume");
    assertThat(action.statusCode()).as(action.body()).isEqualTo(400);
    // Two JSON values are not a body (the first was taken and the rest ignored).
    HttpResponse<String> two =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Authorization", "Bearer " + APPROVER)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"r\"} {\"vms\":[]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(two.statusCode()).as(two.body()).isEqualTo(400);
    assertThat(JsonSerde.JSON.readTree(two.body()).path("error").asText())
        .contains("one JSON value");
    assertThat(audit.history()).isEmpty();
    assertThat(rolloutCommands.history()).isEmpty();
  }

  /**
   * A body is JSON as the document publishes it: sent as another media type (a form from {@code
   * curl -d}, text, JSON in Latin-1, a JSON text sequence) it is a 415 and nothing happens; JSON
   * with its charset named, or a body without a Content-Type, is taken. Before, the media type was
   * not looked at.
   */
  @Test
  void aBodyOfAnotherMediaTypeIsA415AndNothingIsAuditedOrSent() throws Exception {
    String path = "/api/events/" + EVENT + "/approve";
    for (String type :
        List.of(
            "application/x-www-form-urlencoded",
            "text/plain",
            "application/json; charset=ISO-8859-1",
            "application/json-seq")) {
      HttpResponse<String> r = typed(path, type, approval("go").toString());
      assertThat(r.statusCode()).as("%s: %s", type, r.body()).isEqualTo(415);
      assertThat(JsonSerde.JSON.readTree(r.body()).path("error").asText())
          .contains("application/json");
    }
    assertThat(audit.history()).isEmpty();
    HttpResponse<String> named =
        typed(path, "Application/JSON; charset=UTF-8", "{\"reason\":\"go\"}");
    assertThat(named.statusCode()).as(named.body()).isEqualTo(202);
    assertThat(audit.history()).hasSize(1);
  }

  private HttpResponse<String> typed(String path, String contentType, String body)
      throws Exception {
    exercised.add("POST /api/events/{eventId}/approve");
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .header("Authorization", "Bearer " + APPROVER)
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aPathIdIsDecodedOnceAndAMalformedOneIsA400NotA500() throws Exception {
    for (String route : List.of("events", "rollouts", "vms", "approvals")) {
      HttpResponse<String> once =
          call("GET", "/api/" + route + "/%25ZZ", READER, null, "/api/" + route + "/{id}");
      assertThat(once.statusCode()).as("%s: %s", route, once.body()).isEqualTo(404);
      HttpResponse<String> slash =
          call("GET", "/api/" + route + "/a%2Fb", READER, null, "/api/" + route + "/{id}");
      assertThat(slash.statusCode()).as("%s: %s", route, slash.body()).isEqualTo(404);
    }
    // a client that sends a malformed escape (java.net.URI refuses to build one)
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ApiInput.segment("%ZZ"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(400));
    assertThat(ApiInput.segment("a+b%2Bc")).isEqualTo("a+b+c");
    HttpResponse<String> reader =
        call(
            "POST",
            "/api/events/%25ZZ/approve",
            READER,
            approval("go"),
            "/api/events/{eventId}/approve");
    assertThat(reader.statusCode()).isEqualTo(403);
  }

  @Test
  void aReaderMayNotApproveAndNothingIsAudited() throws Exception {
    HttpResponse<String> r =
        call(
            "POST",
            "/api/events/" + EVENT + "/approve",
            READER,
            approval("go"),
            "/api/events/{eventId}/approve");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(audit.history()).isEmpty();
  }

  @Test
  void anApprovalIsCheckedAgainstTheViewThenAuditedBeforeAnythingIsSent() throws Exception {
    String path = "/api/events/" + EVENT.toLowerCase() + "/approve";
    String t = "/api/events/{eventId}/approve";
    assertThat(call("POST", path, APPROVER, approval(null), t).statusCode()).isEqualTo(400);
    assertThat(call("POST", path, APPROVER, approval("go", "vm-3"), t).body())
        .contains("vm-3 (started)");
    assertThat(call("POST", path, APPROVER, approval("go", "vm-9"), t).body())
        .contains("does not report it");
    assertThat(call("POST", "/api/events/nope/approve", APPROVER, approval("go"), t).statusCode())
        .isEqualTo(404);
    assertThat(audit.history()).isEmpty();

    HttpResponse<String> ok = call("POST", path, APPROVER, approval("patch window"), t);
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(202);
    JsonNode body = JsonSerde.JSON.readTree(ok.body());
    String requestId = body.path("requestId").asText();
    assertThat(body.path("commands").path("vm-1").asText())
        .isEqualTo("fleet:" + requestId + ":vm-1");
    assertThat(body.path("commands").has("vm-3")).as("started: not approvable").isFalse();
    assertThat(body.path("releases").toString()).contains("web-9");
    assertThat(audit.history()).hasSize(1);
    assertThat(audit.history().get(0).value().action()).isEqualTo(RolloutCommand.APPROVE);
    ApprovalRequest audited = audit.history().get(0).value().approval();
    assertThat(audited.requestedBy()).isEqualTo("alice");
    assertThat(audited.vmIds()).containsExactly("vm-1", "vm-2");
    assertThat(audited.reason()).isEqualTo("patch window");
    assertThat(audit.history().get(0).key()).isEqualTo(requestId);
  }

  @Test
  void anEventARolloutHoldsAnswers409UnlessTheApprovalOverridesAndSaysSo() throws Exception {
    rollouts.map.put(
        "r-hold",
        new Rollout(
            "r-hold",
            new RolloutSpec(List.of(EVENT), "1", List.of("zone"), null, null),
            "go",
            "alice",
            "api",
            T0,
            Rollout.RUNNING,
            null,
            Map.of(),
            Map.of(),
            List.of(),
            List.of()));
    String path = "/api/events/" + EVENT + "/approve";
    String t = "/api/events/{eventId}/approve";
    HttpResponse<String> held = call("POST", path, APPROVER, approval("now"), t);
    assertThat(held.statusCode()).isEqualTo(409);
    assertThat(held.body()).contains("held by rollout r-hold").contains("override");
    assertThat(audit.history()).isEmpty();

    ObjectNode body = approval("the tier is drained already");
    body.put("override", true);
    HttpResponse<String> ok = call("POST", path, APPROVER, body, t);
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(202);
    assertThat(audit.history())
        .singleElement()
        .satisfies(r -> assertThat(r.value().approval().override()).isTrue());
  }

  @Test
  void aKeyAlreadyUsedAnswersItsRequestForTheSameBodyAnd422ForAnother() throws Exception {
    String id =
        dev.sebridge.envelope.NameBasedUuid.v5(
                dev.sebridge.envelope.NameBasedUuid.SEBRIDGE_NAMESPACE,
                "fleet-request|alice|change-7")
            .toString();
    // made earlier; vm-3 has started since, which a new request could not ask for
    ApprovalRequest earlier =
        new ApprovalRequest(id, EVENT, List.of("vm-1", "vm-3"), "change 7", "alice", T0, "api");
    requests.map.put(id, new RequestView(earlier, T0, Map.of()));
    String path = "/api/events/" + EVENT + "/approve";
    String t = "/api/events/{eventId}/approve";

    HttpResponse<String> retry =
        callWithKey(path, approval("change 7", "vm-1", "vm-3"), "change-7");
    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
    assertThat(JsonSerde.JSON.readTree(retry.body()).path("requestId").asText()).isEqualTo(id);

    HttpResponse<String> other = callWithKey(path, approval("change 8"), "change-7");
    assertThat(other.statusCode()).as(other.body()).isEqualTo(422);
    assertThat(other.body()).contains("with another body");
    assertThat(audit.history()).as("nothing new is written").isEmpty();
    exercised.add("POST " + t);
  }

  HttpResponse<String> callWithKey(String path, JsonNode body, String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .header("Authorization", "Bearer " + APPROVER)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A write the broker did not confirm may still take effect: the 503 names the request with {@code
   * "state": "unknown"}, and a retry with the same key is the same request.
   */
  @Test
  void anAuditWriteThatFailsAnswers503NamingTheRequestWithAnUnknownState() throws Exception {
    String path = "/api/events/" + EVENT + "/approve";
    audit.sendException = new org.apache.kafka.common.errors.TimeoutException("Expiring 1 record");
    rolloutCommands.sendException = audit.sendException;
    HttpResponse<String> failed = callWithKey(path, approval("change 9", "vm-1"), "change-9");
    assertThat(failed.statusCode()).as(failed.body()).isEqualTo(503);
    JsonNode f = JsonSerde.JSON.readTree(failed.body());
    assertThat(f.path("state").asText()).isEqualTo("unknown");
    assertThat(f.path("error").asText()).contains("may still take effect");
    String id = f.path("requestId").asText();
    assertThat(id).isNotBlank();

    audit.sendException = null;
    rolloutCommands.sendException = null;
    HttpResponse<String> retry = callWithKey(path, approval("change 9", "vm-1"), "change-9");
    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
    assertThat(JsonSerde.JSON.readTree(retry.body()).path("requestId").asText()).isEqualTo(id);
  }

  /**
   * A rollout's Idempotency-Key: the same body again is the rollout already made (nothing new
   * written), another body is a 422, and the id is never given to another rollout.
   */
  @Test
  void aRolloutsKeyAnswersItsRolloutForTheSameBodyAnd422ForAnother() throws Exception {
    ObjectNode body = rollout("patch", "1", EVENT);
    HttpResponse<String> first = callWithKey("/api/rollouts", body, "chg-77");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
    String id = JsonSerde.JSON.readTree(first.body()).path("rolloutId").asText();
    RolloutCommand created = rolloutCommands.history().get(0).value();
    // The processor applied it; the view shows it.
    rollouts.map.put(
        id,
        new Rollout(
            id,
            created.spec(),
            created.reason(),
            "alice",
            "api",
            T0,
            Rollout.COMPLETED,
            null,
            Map.of(),
            Map.of(),
            List.of(),
            List.of()));
    int written = rolloutCommands.history().size();

    HttpResponse<String> retry = callWithKey("/api/rollouts", body, "chg-77");
    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
    assertThat(JsonSerde.JSON.readTree(retry.body()).path("rolloutId").asText()).isEqualTo(id);
    assertThat(rolloutCommands.history()).as("nothing new is written").hasSize(written);

    HttpResponse<String> other =
        callWithKey("/api/rollouts", rollout("patch", "2", EVENT), "chg-77");
    assertThat(other.statusCode()).as(other.body()).isEqualTo(422);
    assertThat(other.body()).contains("with another body");
    assertThat(rolloutCommands.history()).hasSize(written);
  }

  /**
   * A key reused at once, before the views show what the first call wrote (their lag; this test's
   * views never do): the same body is the same request and nothing is written twice, another body
   * is a 422, for approvals and rollouts alike. Before, both answered 202 and the second body was
   * silently dropped by the processor.
   */
  @Test
  void aKeyReusedBeforeTheViewsShowTheFirstIsTheSameRequestOr422() throws Exception {
    String path = "/api/events/" + EVENT + "/approve";
    HttpResponse<String> first = callWithKey(path, approval("change 9", "vm-1"), "change-9");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
    String id = JsonSerde.JSON.readTree(first.body()).path("requestId").asText();
    int written = audit.history().size();

    HttpResponse<String> retry = callWithKey(path, approval("change 9", "vm-1"), "change-9");
    assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
    assertThat(JsonSerde.JSON.readTree(retry.body()).path("requestId").asText()).isEqualTo(id);
    HttpResponse<String> other = callWithKey(path, approval("change 9", "vm-2"), "change-9");
    assertThat(other.statusCode()).as(other.body()).isEqualTo(422);
    assertThat(audit.history()).as("written once").hasSize(written);

    ObjectNode body = rollout("patch", "1", EVENT);
    HttpResponse<String> created = callWithKey("/api/rollouts", body, "chg-78");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(202);
    int rolloutWrites = rolloutCommands.history().size();
    HttpResponse<String> again = callWithKey("/api/rollouts", body, "chg-78");
    assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
    assertThat(JsonSerde.JSON.readTree(again.body()).path("rolloutId").asText())
        .isEqualTo(JsonSerde.JSON.readTree(created.body()).path("rolloutId").asText());
    HttpResponse<String> changed =
        callWithKey("/api/rollouts", rollout("patch", "2", EVENT), "chg-78");
    assertThat(changed.statusCode()).as(changed.body()).isEqualTo(422);
    assertThat(rolloutCommands.history()).as("written once").hasSize(rolloutWrites);
  }

  @Test
  void theSameIdempotencyKeyIsTheSameRequest() throws Exception {
    String[] ids = new String[2];
    for (int i = 0; i < 2; i++) {
      HttpRequest r =
          HttpRequest.newBuilder(
                  URI.create(
                      "http://127.0.0.1:" + server.port() + "/api/events/" + EVENT + "/approve"))
              .header("Authorization", "Bearer " + APPROVER)
              .header("Idempotency-Key", "deploy-42")
              .POST(HttpRequest.BodyPublishers.ofString(approval("again").toString()))
              .build();
      ids[i] =
          JsonSerde.JSON
              .readTree(http.send(r, HttpResponse.BodyHandlers.ofString()).body())
              .path("requestId")
              .asText();
    }
    assertThat(ids[0]).isNotBlank().isEqualTo(ids[1]);
  }

  @Test
  void everyRouteIsDocumentedAndEveryAnswerMatchesTheOpenApiSchemas() throws Exception {
    JsonNode doc = contract();
    List<String> problems = new ArrayList<>();
    record Case(
        String method, String template, String path, String token, JsonNode body, int status) {}
    List<Case> cases =
        List.of(
            new Case("GET", "/api/events", "/api/events?open=true&zone=1", READER, null, 200),
            new Case("GET", "/api/events", "/api/events", null, null, 401),
            new Case("GET", "/api/events/{eventId}", "/api/events/" + EVENT, READER, null, 200),
            new Case("GET", "/api/events/{eventId}", "/api/events/unknown", READER, null, 404),
            new Case(
                "POST",
                "/api/events/{eventId}/approve",
                "/api/events/" + EVENT + "/approve",
                APPROVER,
                approval("go", "vm-1"),
                202),
            new Case(
                "POST",
                "/api/events/{eventId}/approve",
                "/api/events/" + EVENT + "/approve",
                READER,
                approval("go"),
                403),
            new Case(
                "POST",
                "/api/events/{eventId}/approve",
                "/api/events/" + EVENT + "/approve",
                APPROVER,
                approval("go", "vm-3"),
                409),
            new Case(
                "POST",
                "/api/events/{eventId}/approve",
                "/api/events/" + EVENT + "/approve",
                APPROVER,
                approval(""),
                400),
            new Case("GET", "/api/vms", "/api/vms?silent=true", READER, null, 200),
            new Case("GET", "/api/vms/{vmId}", "/api/vms/vm-1", READER, null, 200),
            new Case("GET", "/api/vms/{vmId}", "/api/vms/vm-404", READER, null, 404),
            new Case("GET", "/api/approvals/{requestId}", "/api/approvals/r1", READER, null, 200),
            new Case("GET", "/api/approvals/{requestId}", "/api/approvals/r404", READER, null, 404),
            new Case(
                "POST",
                "/api/events/{eventId}/rollout",
                "/api/events/" + EVENT + "/rollout",
                APPROVER,
                rollout("go", "1"),
                202),
            new Case(
                "POST",
                "/api/events/{eventId}/rollout",
                "/api/events/" + EVENT + "/rollout",
                READER,
                rollout("go", "1"),
                403),
            new Case(
                "POST",
                "/api/events/{eventId}/rollout",
                "/api/events/" + EVENT + "/rollout",
                APPROVER,
                rollout("go", "0"),
                400),
            new Case(
                "POST",
                "/api/events/{eventId}/rollout",
                "/api/events/" + NEVER + "/rollout",
                APPROVER,
                rollout("go", "1"),
                409),
            new Case(
                "POST",
                "/api/rollouts",
                "/api/rollouts",
                APPROVER,
                rollout("go", "10%", EVENT),
                202),
            new Case(
                "POST",
                "/api/rollouts",
                "/api/rollouts",
                APPROVER,
                rollout("go", "10%", "unknown"),
                404),
            new Case(
                "POST", "/api/rollouts", "/api/rollouts", null, rollout("go", "1", EVENT), 401),
            new Case("GET", "/api/rollouts", "/api/rollouts", READER, null, 200),
            new Case("GET", "/api/approvals", "/api/approvals", READER, null, 200),
            new Case(
                "GET", "/api/rollouts/{rolloutId}", "/api/rollouts/r-halted", READER, null, 200),
            new Case("GET", "/api/rollouts/{rolloutId}", "/api/rollouts/r-x", READER, null, 404),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/resume",
                "/api/rollouts/r-halted/resume",
                APPROVER,
                action("back", null),
                202),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/resume",
                "/api/rollouts/r-running/resume",
                APPROVER,
                action("back", null),
                409),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/resume",
                "/api/rollouts/r-halted/resume",
                READER,
                action("back", null),
                403),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/skip",
                "/api/rollouts/r-halted/skip",
                APPROVER,
                action("broken", "vm-1"),
                202),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/skip",
                "/api/rollouts/r-halted/skip",
                APPROVER,
                action("broken", null),
                400),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/skip",
                "/api/rollouts/r-halted/skip",
                APPROVER,
                action("broken", null).put("eventId", EVENT.toLowerCase(java.util.Locale.ROOT)),
                202),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/skip",
                "/api/rollouts/r-halted/skip",
                APPROVER,
                action("broken", null).put("eventId", "not-in-the-rollout"),
                404),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/abort",
                "/api/rollouts/r-running/abort",
                APPROVER,
                action("stop", null),
                202),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/abort",
                "/api/rollouts/r-done/abort",
                APPROVER,
                action("stop", null),
                409),
            new Case(
                "POST",
                "/api/rollouts/{rolloutId}/abort",
                "/api/rollouts/r-running/abort",
                APPROVER,
                action("", null),
                400),
            new Case("GET", "/api/policies", "/api/policies", READER, null, 200),
            new Case("GET", "/api/coverage", "/api/coverage", READER, null, 200),
            new Case(
                "GET",
                "/api/coverage/without-agent",
                "/api/coverage/without-agent?limit=1",
                READER,
                null,
                200),
            new Case(
                "GET",
                "/api/coverage/without-agent",
                "/api/coverage/without-agent?agent=none",
                READER,
                null,
                400),
            new Case("GET", "/api/vms", "/api/vms?inventory=unknown", READER, null, 200),
            new Case("GET", "/api/vms", "/api/vms?inventory=maybe", READER, null, 400),
            new Case("GET", "/api/campaigns", "/api/campaigns", READER, null, 200),
            new Case(
                "GET",
                "/api/campaigns/{campaignId}",
                "/api/campaigns/" + campaignOf(EVENT),
                READER,
                null,
                200),
            new Case("GET", "/api/campaigns/{campaignId}", "/api/campaigns/c-0", READER, null, 404),
            new Case("GET", "/metrics", "/metrics", READER, null, 200),
            new Case("GET", "/healthz", "/healthz", null, null, 200),
            new Case("GET", "/readyz", "/readyz", null, null, 200));
    Set<String> documented = new HashSet<>();
    doc.path("paths")
        .fields()
        .forEachRemaining(
            p ->
                p.getValue()
                    .fieldNames()
                    .forEachRemaining(m -> documented.add(m.toUpperCase() + " " + p.getKey())));
    Set<String> covered = new HashSet<>();
    for (Case c : cases) {
      covered.add(c.method() + " " + c.template());
      HttpResponse<String> r = call(c.method(), c.path(), c.token(), c.body(), c.template());
      if (r.statusCode() != c.status()) {
        problems.add(c + " answered " + r.statusCode() + ": " + r.body());
        continue;
      }
      JsonNode response =
          doc.at(
              "/paths/"
                  + c.template().replace("/", "~1")
                  + "/"
                  + c.method().toLowerCase()
                  + "/responses/"
                  + c.status());
      if (response.isMissingNode()) {
        problems.add(c + ": status " + c.status() + " is not documented");
        continue;
      }
      if (response.has("$ref")) {
        response = doc.at(response.get("$ref").asText().substring(1));
      }
      JsonNode schema = response.path("content").path("application/json").path("schema");
      if (schema.isMissingNode()) {
        continue; // text/plain (metrics)
      }
      ObjectNode standalone = JsonSerde.JSON.createObjectNode();
      standalone.put("$schema", "https://json-schema.org/draft/2020-12/schema");
      standalone.set("$defs", rewriteRefs(doc.at("/components/schemas").deepCopy()));
      standalone.setAll((ObjectNode) rewriteRefs(schema.deepCopy()));
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
          .getSchema(standalone)
          .validate(JsonSerde.JSON.readTree(r.body()))
          .forEach(
              m ->
                  problems.add(
                      c.method() + " " + c.path() + " -> " + c.status() + ": " + m.getMessage()));
    }
    assertThat(problems).isEmpty();
    assertThat(covered).as("every documented route is exercised").isEqualTo(documented);
  }

  /**
   * Every schema of the contract uses JSON Schema's keywords only: a description with a comma in a
   * YAML flow mapping, unquoted, is two keys (one of them "waiting included"), which the linter
   * passes beside a $ref and the validator logs as an unknown keyword at every start.
   */
  @Test
  void theContractsSchemasUseNoUnknownKeyword() throws Exception {
    JsonNode doc = contract();
    Set<String> known =
        Set.of(
            "$ref",
            "additionalProperties",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "default",
            "description",
            "title",
            "enum",
            "const",
            "format",
            "items",
            "maxLength",
            "minLength",
            "maximum",
            "minimum",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "maxItems",
            "minItems",
            "uniqueItems",
            "pattern",
            "properties",
            "required",
            "type",
            "unevaluatedProperties",
            "examples",
            "deprecated",
            "readOnly",
            "writeOnly",
            "maxProperties",
            "minProperties");
    List<String> unknown = new ArrayList<>();
    doc.path("components")
        .path("schemas")
        .fields()
        .forEachRemaining(
            e -> keywords(e.getValue(), "#/components/schemas/" + e.getKey(), known, unknown));
    List<JsonNode> inline = doc.path("paths").findValues("schema");
    inline.addAll(doc.path("components").path("responses").findValues("schema"));
    for (JsonNode n : inline) {
      keywords(n, "(inline) " + n, known, unknown);
    }
    assertThat(unknown).isEmpty();
  }

  private static void keywords(JsonNode schema, String at, Set<String> known, List<String> out) {
    if (!schema.isObject()) {
      return;
    }
    schema
        .fieldNames()
        .forEachRemaining(
            k -> {
              if (!known.contains(k)) {
                out.add(at + ": " + k);
              }
            });
    schema
        .path("properties")
        .fields()
        .forEachRemaining(p -> keywords(p.getValue(), at + "/" + p.getKey(), known, out));
    for (String k : List.of("items", "additionalProperties", "not")) {
      keywords(schema.path(k), at + "/" + k, known, out);
    }
    for (String k : List.of("oneOf", "anyOf", "allOf")) {
      schema.path(k).forEach(s -> keywords(s, at + "/" + k, known, out));
    }
  }

  /** The published contract, docs/fleet-openapi.yaml. */
  static JsonNode contract() throws java.io.IOException {
    return YAML.readTree(
        Path.of(System.getProperty("basedir", ".")).resolve("../docs/fleet-openapi.yaml").toFile());
  }

  /** {@code #/components/schemas/X} becomes {@code #/$defs/X} in a standalone schema. */
  static JsonNode rewriteRefs(JsonNode n) {
    return RequestContract.rewriteRefs(n);
  }
}
