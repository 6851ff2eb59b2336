package dev.sebridge.sink.kafka;

import dev.sebridge.config.ConfigException;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;

/** The {@code kafka} sink. */
public final class KafkaSinkProvider implements EventSinkProvider {
  public static final ConfigKey<String> BOOTSTRAP_SERVERS =
      ConfigKey.builder("sink.kafka.bootstrap-servers", ConfigType.STRING)
          .required()
          .doc("Kafka sink: bootstrap servers (host:port,...).")
          .build();

  public static final ConfigKey<String> TOPIC =
      ConfigKey.builder("sink.kafka.topic", ConfigType.STRING)
          .defaultValue("scheduled-events")
          .doc(
              "Kafka sink: topic of the envelopes, keyed by vmId. Create it beforehand: sebridge"
                  + " never relies on topic auto-creation.")
          .build();

  public static final ConfigKey<String> PRODUCER =
      ConfigKey.builder("sink.kafka.producer.*", ConfigType.STRING)
          .doc(
              "Kafka sink: any kafka-clients producer setting, passed through verbatim (e.g."
                  + " sink.kafka.producer.security.protocol=SASL_SSL). Idempotence, acks=all and"
                  + " the byte-array serializers cannot be changed. Client metrics are off unless"
                  + " set here (metric.reporters empty, enable.metrics.push=false).")
          .build();

  /** Defaults tuned for a few latency-sensitive envelopes, overridable through PRODUCER. */
  static final Map<String, Object> DEFAULTS =
      KafkaSink.withNoClientMetrics(
          Map.of(
              "linger.ms", "0",
              "max.block.ms", "10000",
              "request.timeout.ms", "10000",
              "delivery.timeout.ms", "25000",
              "max.in.flight.requests.per.connection", "5",
              "reconnect.backoff.max.ms", "1000",
              "retry.backoff.max.ms", "1000",
              "metadata.max.age.ms", "60000"));

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of(BOOTSTRAP_SERVERS, TOPIC, PRODUCER);
  }

  /** The producer configuration, or an exception naming every key that cannot work. */
  static Map<String, Object> producerConfig(Configuration config) {
    Map<String, Object> props = new HashMap<>(DEFAULTS);
    props.put("client.id", "sebridge-" + AgentInfo.current().hostName());
    Map<String, String> passthrough = config.passthrough(PRODUCER);
    props.putAll(passthrough);
    List<ConfigProblem> problems = new ArrayList<>();
    KafkaSink.required()
        .forEach(
            (k, v) -> {
              String set = passthrough.get(k);
              if (set != null
                  && !set.trim()
                      .toLowerCase(Locale.ROOT)
                      .equals(v.toString().toLowerCase(Locale.ROOT))
                  && !(k.equals("acks") && set.trim().equals("-1"))) {
                problems.add(
                    new ConfigProblem(
                        PRODUCER.prefix() + k,
                        "must be "
                            + v
                            + " (sebridge forgets an envelope once Kafka acknowledged it)"));
              }
            });
    if (passthrough.containsKey("bootstrap.servers")) {
      problems.add(
          new ConfigProblem(
              PRODUCER.prefix() + "bootstrap.servers", "set sink.kafka.bootstrap-servers instead"));
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    props.putAll(KafkaSink.required());
    props.put("bootstrap.servers", config.get(BOOTSTRAP_SERVERS));
    return props;
  }

  @Override
  public List<ConfigProblem> validate(Configuration config) {
    try {
      producerConfig(config);
      return List.of();
    } catch (ConfigException e) {
      return e.problems();
    }
  }

  @Override
  public EventSink create(SinkContext context) {
    Map<String, Object> props = producerConfig(context.config());
    String topic = context.config().get(TOPIC);
    return new KafkaSink(topic, () -> new KafkaProducer<>(props));
  }
}
