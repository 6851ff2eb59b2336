package dev.sebridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.config.ConfigException;
import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkContext;
import dev.sebridge.testing.EventSinkContractTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared sink contract, and the Kafka specifics, against a real broker. */
class KafkaSinkTest extends EventSinkContractTest {
  static KafkaTestBroker broker;
  String topic;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.start();
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  static Configuration config(String topic, Map<String, String> extra) {
    Map<String, String> m = new java.util.HashMap<>();
    m.put("sink.kafka.bootstrap-servers", broker.bootstrapServers());
    m.put("sink.kafka.topic", topic);
    m.putAll(extra);
    return Configuration.of(m);
  }

  @Override
  protected EventSink createSink() {
    topic = KafkaTestBroker.uniqueTopic("contract");
    broker.createTopic(topic, 3);
    return new KafkaSinkProvider()
        .create(new SinkContext(config(topic, Map.of()), Path.of("."), Clock.systemUTC()));
  }

  @Override
  protected List<String> delivered(int expected, Duration timeout) {
    // Order holds per key (vmId); the contract's envelopes share one vmId, hence one partition.
    return broker.readAll(topic, expected, timeout).stream()
        .map(r -> new String(r.value(), StandardCharsets.UTF_8))
        .toList();
  }

  @Test
  void recordsAreKeyedByVmIdWithCloudEventsHeaders() throws Exception {
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-42", 2);
    sink.export(envs).get(30, TimeUnit.SECONDS);
    List<ConsumerRecord<byte[], byte[]>> got = broker.readAll(topic, 2, Duration.ofSeconds(30));
    assertThat(got).hasSize(2);
    ConsumerRecord<byte[], byte[]> r = got.get(0);
    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("vm-42");
    assertThat(header(r, "content-type")).isEqualTo("application/cloudevents+json; charset=utf-8");
    assertThat(header(r, "ce_type")).isEqualTo(envs.get(0).type());
    assertThat(header(r, "ce_id")).isEqualTo(envs.get(0).id());
    assertThat(header(r, "ce_source")).isEqualTo(envs.get(0).source());
    assertThat(header(r, "ce_subject")).isEqualTo(envs.get(0).subject());
    assertThat(got.get(1).partition()).isEqualTo(r.partition());
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Test
  void aMissingTopicIsARetriableFailureNotAnAutoCreation() throws Exception {
    Configuration c = config("no-such-topic", Map.of("sink.kafka.producer.max.block.ms", "1500"));
    EventSink s =
        new KafkaSinkProvider().create(new SinkContext(c, Path.of("."), Clock.systemUTC()));
    try {
      assertThatThrownBy(
              () -> s.export(EventSinkContractTest.envelopes("vm-1", 1)).get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(RetriableSinkException.class);
      try (var admin =
          org.apache.kafka.clients.admin.Admin.create(
              Map.of("bootstrap.servers", broker.bootstrapServers()))) {
        assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS))
            .doesNotContain("no-such-topic");
      }
    } finally {
      s.close();
    }
  }

  @Test
  void producerSettingsPassThroughButTheSafetyOnesCannotBeWeakened() {
    Map<String, Object> p =
        KafkaSinkProvider.producerConfig(
            config(
                "t",
                Map.of(
                    "sink.kafka.producer.compression.type",
                    "zstd",
                    "sink.kafka.producer.linger.ms",
                    "5")));
    assertThat(p)
        .containsEntry("compression.type", "zstd")
        .containsEntry("linger.ms", "5")
        .containsEntry("acks", "all")
        .containsEntry("enable.idempotence", "true")
        .containsEntry("bootstrap.servers", broker.bootstrapServers());
    assertThatThrownBy(
            () ->
                KafkaSinkProvider.producerConfig(
                    config(
                        "t",
                        Map.of(
                            "sink.kafka.producer.acks",
                            "1",
                            "sink.kafka.producer.enable.idempotence",
                            "false"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.kafka.producer.acks: must be all")
        .hasMessageContaining("sink.kafka.producer.enable.idempotence: must be true");
    assertThat(
            KafkaSinkProvider.producerConfig(config("t", Map.of("sink.kafka.producer.acks", "-1"))))
        .containsEntry("acks", "all");
  }
}
