package dev.sebridge.sink.kafka;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.CommandSourceProvider;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The {@code kafka} command source. */
public final class KafkaCommandSourceProvider implements CommandSourceProvider {
  public static final ConfigKey<String> BOOTSTRAP_SERVERS =
      ConfigKey.builder("commands.kafka.bootstrap-servers", ConfigType.STRING)
          .required()
          .doc("Kafka command source: bootstrap servers.")
          .build();

  public static final ConfigKey<String> TOPIC =
      ConfigKey.builder("commands.kafka.topic", ConfigType.STRING)
          .defaultValue("sebridge-commands")
          .doc(
              "Kafka command source: the commands topic, keyed by target vmId. Each agent reads"
                  + " only the partition its vmId hashes to.")
          .build();

  public static final ConfigKey<String> CONSUMER =
      ConfigKey.builder("commands.kafka.consumer.*", ConfigType.STRING)
          .doc(
              "Kafka command source: any kafka-clients consumer setting (security etc.), passed"
                  + " through. No consumer group is used: group.id is refused. Client metrics are"
                  + " off unless set here (metric.reporters empty, enable.metrics.push=false).")
          .build();

  public static final ConfigKey<Boolean> VERIFY_TOPIC =
      ConfigKey.builder("commands.kafka.verify-topic", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "Kafka command source: before reading, check that the commands topic has"
                  + " compression.type=uncompressed and max.message.bytes <= 65536, so that no"
                  + " record can decompress to more than 64 KiB in the agent; refuse to read it"
                  + " otherwise (approvals by command off, /readyz says why, events go on). Needs"
                  + " DescribeConfigs on the topic. Set false only where the topic is known to be"
                  + " configured so.")
          .build();

  /**
   * Batches big enough that a flood of garbage is read quickly, fetches bounded (records are at
   * most 64 KiB on a safe topic).
   */
  static final Map<String, Object> DEFAULTS =
      KafkaSink.withNoClientMetrics(
          Map.ofEntries(
              Map.entry("enable.auto.commit", "false"),
              Map.entry("fetch.max.wait.ms", "100"),
              Map.entry("fetch.min.bytes", "1"),
              Map.entry("max.poll.records", "500"),
              Map.entry("fetch.max.bytes", "1048576"),
              Map.entry("max.partition.fetch.bytes", "262144"),
              Map.entry("isolation.level", "read_committed"),
              Map.entry("reconnect.backoff.max.ms", "1000"),
              Map.entry("request.timeout.ms", "10000"),
              Map.entry("default.api.timeout.ms", "15000")));

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of(BOOTSTRAP_SERVERS, TOPIC, VERIFY_TOPIC, CONSUMER);
  }

  @Override
  public List<ConfigProblem> validate(Configuration config) {
    if (config.passthrough(CONSUMER).containsKey("group.id")) {
      return List.of(
          new ConfigProblem(
              CONSUMER.prefix() + "group.id",
              "must not be set: each agent reads its own partition without a group"));
    }
    return List.of();
  }

  @Override
  public List<String> advice(Configuration config) {
    return List.of(
        "the commands topic "
            + config.get(TOPIC)
            + " must be stored uncompressed with records of at most 64 KiB; "
            + (config.get(VERIFY_TOPIC)
                ? "the agent checks it before reading and refuses any other. To set it: "
                : "commands.kafka.verify-topic=false: the agent trusts that it is. To set it: ")
            + CommandTopicGuard.fix(config.get(TOPIC)));
  }

  static Map<String, Object> consumerConfig(Configuration config) {
    Map<String, Object> p = new HashMap<>(DEFAULTS);
    p.put("client.id", "sebridge-commands-" + AgentInfo.current().hostName());
    p.putAll(config.passthrough(CONSUMER));
    p.put("bootstrap.servers", config.get(BOOTSTRAP_SERVERS));
    p.remove("group.id");
    return p;
  }

  @Override
  public CommandSource create(Configuration config, String vmId) {
    return new KafkaCommandSource(
        config.get(TOPIC),
        consumerConfig(config),
        vmId,
        Clock.systemUTC(),
        config.get(VERIFY_TOPIC));
  }
}
