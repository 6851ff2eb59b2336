package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.agentless.CentralEventParser;
import dev.sebridge.fleet.agentless.Delivery;
import dev.sebridge.fleet.model.VmEventUpdate;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads Azure's central scheduled-event deliveries ({@link FleetTopology#AGENTLESS_EVENTS}) and
 * sends each VM scheduled event to its event's partition, as {@link FanOut} sends the agents'
 * reports, where {@link EventProcessor} keeps one view per EventId of both. What cannot be read is
 * counted ({@code sebridge_fleet_skipped_records_total{kind="central-malformed"}}) and logged;
 * other notifications the topic carries are passed over.
 */
final class CentralFanOut implements Processor<String, byte[], String, Object> {
  private static final Logger LOG = LoggerFactory.getLogger(CentralFanOut.class);
  static final String MALFORMED = "central-malformed";
  static final String SOURCE = "envelopes-central";
  static final String PROCESSOR = "envelopes-central-fan-out";

  private final CentralEventParser parser = new CentralEventParser(JsonSerde.JSON);
  private ProcessorContext<String, Object> context;

  /**
   * Reads Azure's central deliveries into {@code t} when {@code topics} say so: the name of the
   * processor that sends them on to the events' partitions.
   */
  static java.util.Optional<String> addTo(org.apache.kafka.streams.Topology t, Topics topics) {
    if (!topics.centralEvents()) {
      return java.util.Optional.empty();
    }
    // Named after the envelopes source so that turning this on or off keeps every sub-topology's
    // number (Streams numbers them in node-name order): the tasks, and their stores, stay theirs.
    t.addSource(
        SOURCE,
        new org.apache.kafka.common.serialization.StringDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
        topics.of(FleetTopology.AGENTLESS_EVENTS));
    t.addProcessor(PROCESSOR, CentralFanOut::new, SOURCE);
    return java.util.Optional.of(PROCESSOR);
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    if (record.value() == null) {
      return;
    }
    for (Delivery d : parser.parse(record.value(), name -> header(record.headers(), name))) {
      if (d instanceof Delivery.Event e) {
        // The delivery's own time, never later than the record's (a time in the future would
        // keep an event open for good; one in the past is as early as Azure said).
        Instant written = Instant.ofEpochMilli(record.timestamp());
        Instant said = e.event().deliveredAt();
        Instant at = said != null && said.isBefore(written) ? said : written;
        VmEventUpdate u = VmEventUpdate.central(e.event(), at);
        context.forward(
            new Record<String, Object>(u.eventKey(), u, record.timestamp()),
            FleetTopology.BY_EVENT_SINK);
      } else if (d instanceof Delivery.Malformed m) {
        SkipAndCount.skipped(MALFORMED, "delivery " + m.deliveryId() + ": " + m.reason());
      } else if (d instanceof Delivery.Ignored i) {
        LOG.debug("delivery {} passed over: {}", i.deliveryId(), i.reason());
      }
    }
  }

  private static String header(Headers headers, String name) {
    Header h = headers == null ? null : headers.lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
