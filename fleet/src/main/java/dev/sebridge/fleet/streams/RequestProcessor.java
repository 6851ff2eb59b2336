package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.state.CrashPoints;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an audited approval request into one signed command per VM, and for the VMs without a live
 * agent one order to acknowledge the event through Azure's Maintenance API ({@link
 * FleetTopology#ACKNOWLEDGEMENTS}), and follows the results: the agents', and the acknowledger's
 * ({@link FleetTopology#REQUEST_STATE}, keyed by request id).
 *
 * <p>Runs with exactly-once processing: the commands, the request's state and its view are
 * committed together. A request handled again (a failover before the commit) signs again with the
 * same command ids; commands of the aborted attempt are never seen by the agents, which read
 * committed records only, and their replay cache refuses a second copy anyway.
 */
final class RequestProcessor implements Processor<String, Object, String, Object> {
  private static final Logger LOG = LoggerFactory.getLogger(RequestProcessor.class);

  private final CommandIssuer issuer;
  private final CrashPoints crashPoints;
  private final java.time.Duration history;
  private final boolean acknowledging;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, RequestView> store;

  /**
   * @param history how long a request is kept after it was made ({@link Retention})
   */
  RequestProcessor(CommandIssuer issuer, CrashPoints crashPoints, java.time.Duration history) {
    this(issuer, crashPoints, history, false);
  }

  /**
   * @param acknowledging whether acknowledgements go to Azure's Maintenance API ({@link
   *     FleetTopology#ACKNOWLEDGEMENTS}); without, a request's VMs without an agent get {@code
   *     failed}, and nothing is sent for them
   */
  /** How many requests a retention check reads at most. */
  static final int SWEEP = 2_000;

  private final RetentionSweep<RequestView> sweep = new RetentionSweep<>(SWEEP);

  RequestProcessor(
      CommandIssuer issuer,
      CrashPoints crashPoints,
      java.time.Duration history,
      boolean acknowledging) {
    this.issuer = issuer;
    this.crashPoints = crashPoints;
    this.history = history;
    this.acknowledging = acknowledging;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.store = context.getStateStore(FleetTopology.REQUEST_STATE);
    context.schedule(
        Retention.CHECK,
        org.apache.kafka.streams.processor.PunctuationType.WALL_CLOCK_TIME,
        this::forgetOld);
  }

  /**
   * Requests made longer than {@code history} ago are deleted (a tombstone on the views topic). One
   * read again from the audit topic after that (a replay) is older than a command lives: it is
   * refused, never signed. Each check reads at most {@link #SWEEP} requests, on from where the last
   * one stopped (the first of a processor: all; {@link RetentionSweep}): a request goes within
   * {@code history} plus a minute per {@link #SWEEP} requests kept.
   */
  private void forgetOld(long wallClockMs) {
    Instant horizon = Instant.ofEpochMilli(wallClockMs).minus(history);
    for (String key :
        sweep.expired(
            store,
            (key, v) -> {
              Instant at =
                  v.request() == null
                      ? null
                      : v.request().requestedAt() != null
                          ? v.request().requestedAt()
                          : v.commandsSentAt();
              return at == null || at.isBefore(horizon);
            })) {
      store.delete(key);
      context.forward(
          new Record<String, Object>(key, null, wallClockMs), FleetTopology.REQUESTS_VIEW_SINK);
    }
  }

  @Override
  public void process(Record<String, Object> record) {
    if (record.value() instanceof ApprovalRequest r) {
      request(r, record.timestamp());
    } else if (record.value() instanceof ResultReport result) {
      result(record.key(), result, record.timestamp());
    }
  }

  private void request(ApprovalRequest r, long timestamp) {
    if (store.get(r.requestId()) != null) {
      return; // handled already: nothing new is sent
    }
    Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
    Map<String, RequestView.VmResult> vms = new LinkedHashMap<>();
    if (r.refusal() == null
        && r.requestedAt() != null
        && r.requestedAt().plus(issuer.lifetime()).isBefore(now)) {
      // A replay (a fresh application id reading a year of audit records, a backlog): signed now
      // it would carry a fresh lifetime for a decision made long ago.
      r =
          r.refused(
              "requested at "
                  + r.requestedAt()
                  + ", longer ago than a command lives ("
                  + issuer.lifetime()
                  + "): an approval that old is not signed; ask again");
    }
    if (r.refusal() == null && !r.wasAdmitted()) {
      // Written to the audit topic by something other than the fleet-wide ledger (an older
      // instance during an upgrade, another producer): audited as refused, never signed.
      r =
          r.refused(
              "written to the audit topic without passing the fleet-wide ledger: send approvals"
                  + " through the fleet service's API");
    }
    if (r.refusal() != null) {
      // The fleet-wide ledger refused it (a rollout holds the event, or a group would pass a
      // rollout's limit): audited, and nothing is sent.
      unsent(r, "refused", "fleet-ledger", r.refusal(), now, timestamp);
      LOG.info("approval request {} refused, nothing sent: {}", r.requestId(), r.refusal());
      return;
    }
    List<byte[]> commands;
    try {
      // A request only Azure's Maintenance API carries signs nothing.
      commands = r.vmIds().isEmpty() ? List.of() : issuer.commands(r, now);
    } catch (RuntimeException e) {
      // Key Vault unreachable, a bad key: nothing is sent, and the request says so.
      LOG.error("approval request {}: cannot sign its commands, nothing sent", r.requestId(), e);
      unsent(
          r,
          "failed",
          "not-sent",
          "the fleet service could not sign the command: " + e.getMessage(),
          now,
          timestamp);
      return;
    }
    for (int i = 0; i < commands.size(); i++) {
      String vmId = r.vmIds().get(i);
      context.forward(
          new Record<String, Object>(vmId, commands.get(i), timestamp),
          FleetTopology.COMMANDS_SINK);
      vms.put(
          vmId,
          new RequestView.VmResult(
              ApprovalRequest.commandId(r.requestId(), vmId), null, null, null, null));
    }
    if (r.acknowledge() != null) {
      acknowledge(r, now, timestamp, vms);
    }
    crashPoints.reach(CrashPoints.FLEET_REQUEST_SENT);
    RequestView view = new RequestView(r, now, vms);
    store.put(r.requestId(), view);
    context.forward(
        new Record<String, Object>(r.requestId(), view, timestamp),
        FleetTopology.REQUESTS_VIEW_SINK);
    LOG.info(
        "approval request {} by {}: {} command(s){} for event {}",
        r.requestId(),
        r.requestedBy(),
        commands.size(),
        r.acknowledge() == null
            ? ""
            : " and an acknowledgement through Azure's Maintenance API for "
                + r.acknowledge().vms().size()
                + " VM(s) without an agent",
        r.eventId());
  }

  /**
   * The VMs without an agent: one order to the acknowledger, which acknowledges the scheduled event
   * through Azure's Maintenance API within the command lifetime and reports each VM's outcome.
   */
  private void acknowledge(
      ApprovalRequest r, Instant now, long timestamp, Map<String, RequestView.VmResult> vms) {
    Acknowledgement a = r.acknowledge();
    if (acknowledging) {
      context.forward(
          new Record<String, Object>(
              r.requestId(),
              new AcknowledgeOrder(
                  r.requestId(),
                  r.eventId(),
                  a.resourceId(),
                  a.vms(),
                  r.requestedBy(),
                  now,
                  now.plus(issuer.lifetime())),
              timestamp),
          FleetTopology.ACKNOWLEDGEMENTS_SINK);
    }
    for (String name : a.vms()) {
      String key = Acknowledgement.vmKey(name);
      vms.put(
          key,
          acknowledging
              ? new RequestView.VmResult(
                  ApprovalRequest.commandId(r.requestId(), key), null, null, null, null)
              : new RequestView.VmResult(
                  ApprovalRequest.commandId(r.requestId(), key),
                  "failed",
                  "not-sent",
                  "acknowledging through Azure's Maintenance API is off on this instance"
                      + " (fleet.acknowledge.enabled): nothing was sent for this VM",
                  now));
    }
  }

  /** A request that sends nothing: each VM gets this outcome, and the view says so. */
  private void unsent(
      ApprovalRequest r,
      String outcome,
      String reasonCode,
      String reason,
      Instant now,
      long timestamp) {
    Map<String, RequestView.VmResult> vms = new LinkedHashMap<>();
    for (String vmId : r.vmKeys()) {
      vms.put(
          vmId,
          new RequestView.VmResult(
              ApprovalRequest.commandId(r.requestId(), vmId), outcome, reasonCode, reason, now));
    }
    RequestView view = new RequestView(r, null, vms);
    store.put(r.requestId(), view);
    context.forward(
        new Record<String, Object>(r.requestId(), view, timestamp),
        FleetTopology.REQUESTS_VIEW_SINK);
  }

  private void result(String requestId, ResultReport result, long timestamp) {
    RequestView view = store.get(requestId);
    if (view == null
        || !view.vms().containsKey(result.vmId())
        || !"outcome".equals(result.resultKind())) {
      return; // not ours, or a replay's refusal: the first outcome stands
    }
    Map<String, RequestView.VmResult> vms = new LinkedHashMap<>(view.vms());
    RequestView.VmResult old = vms.get(result.vmId());
    if (!old.commandId().equals(result.commandId())) {
      return;
    }
    if (old.outcome() != null && Acknowledgement.byName(result.vmId())) {
      // An acknowledgement's outcome stands: an order answered again (read again after a failed
      // commit, or by a new consumer group from the topic's start) changes nothing.
      return;
    }
    vms.put(
        result.vmId(),
        new RequestView.VmResult(
            old.commandId(), result.outcome(), result.reasonCode(), result.reason(), result.at()));
    RequestView next = new RequestView(view.request(), view.commandsSentAt(), vms);
    store.put(requestId, next);
    context.forward(
        new Record<String, Object>(requestId, next, timestamp), FleetTopology.REQUESTS_VIEW_SINK);
  }
}
