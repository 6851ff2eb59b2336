package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.FleetEnvelope;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.fleet.model.VmEventUpdate;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Sends what an envelope says about other keys where they are kept: each VM's part in an event to
 * the event's partition ({@link FleetTopology#BY_EVENT}), and the result of a command the fleet
 * service sent to its request's partition ({@link FleetTopology#BY_REQUEST}).
 */
final class FanOut implements Processor<String, FleetEnvelope, String, Object> {
  private ProcessorContext<String, Object> context;

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, FleetEnvelope> record) {
    FleetEnvelope e = record.value();
    for (VmEventUpdate u : EventViews.updatesOf(e)) {
      context.forward(
          new Record<String, Object>(u.eventKey(), u, record.timestamp()),
          FleetTopology.BY_EVENT_SINK);
    }
    if (e.isResult()) {
      String commandId = e.data().path("commandId").asText(null);
      ApprovalRequest.requestIdOf(commandId)
          .ifPresent(
              requestId ->
                  context.forward(
                      new Record<String, Object>(
                          requestId, ResultReport.of(e, commandId), record.timestamp()),
                      FleetTopology.BY_REQUEST_SINK));
    }
  }
}
