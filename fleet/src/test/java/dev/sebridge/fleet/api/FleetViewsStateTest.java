package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Views read from Kafka Streams that are not running (not started yet, stopping, stopped on an
 * error) are {@link FleetViews.Unavailable}, an {@link InvalidStateStoreException} the API answers
 * 503 with Retry-After. Before, a stopped instance's {@code store()} threw a plain
 * IllegalStateException: every request a 500 with a stack trace at ERROR. A real KafkaStreams,
 * which needs no broker until it starts.
 */
class FleetViewsStateTest {
  @TempDir Path dir;

  @Test
  void viewsOfStreamsThatAreNotRunningAreUnavailable() {
    StreamsBuilder b = new StreamsBuilder();
    b.globalTable(
        "views-vms",
        org.apache.kafka.streams.kstream.Materialized.<String, String>as(
                Stores.inMemoryKeyValueStore(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW))
            .withKeySerde(Serdes.String())
            .withValueSerde(Serdes.String()));
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "views-state-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    p.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
    KafkaStreams streams = new KafkaStreams(b.build(), p);
    FleetViews views = FleetViews.of(streams);
    assertThatThrownBy(() -> views.vm("vm-1"))
        .isInstanceOf(FleetViews.Unavailable.class)
        .hasMessageContaining("CREATED");
    streams.close();
    assertThatThrownBy(() -> views.vm("vm-1"))
        .isInstanceOf(FleetViews.Unavailable.class)
        .isInstanceOf(InvalidStateStoreException.class)
        .hasMessageContaining("NOT_RUNNING");
  }
}
