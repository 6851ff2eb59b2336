package dev.sebridge.app;

import com.nimbusds.jose.jwk.JWK;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.config.ConfigType;
import dev.sebridge.sink.kafka.KafkaCommandPublisher;
import java.io.Reader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sebridge approve}: signs an approval command and publishes it for one VM. */
@Command(
    name = "approve",
    mixinStandardHelpOptions = true,
    description =
        "Signs an approval command for scheduled events of one VM and publishes it; prints its id.")
final class ApproveCommand implements Callable<Integer> {
  @Option(
      names = "--event-id",
      required = true,
      paramLabel = "ID",
      description = "EventId to approve (repeatable).")
  List<String> eventIds;

  @Option(
      names = "--vm",
      required = true,
      paramLabel = "VMID",
      description = "Target vmId (the agent's partition key).")
  String vmId;

  @Option(
      names = "--key",
      required = true,
      paramLabel = "FILE",
      description = "Private JWK from sebridge keygen.")
  Path key;

  @Option(names = "--kafka", paramLabel = "BOOTSTRAP", description = "Kafka bootstrap servers.")
  String kafka;

  @Option(names = "--topic", description = "Commands topic (default: ${DEFAULT-VALUE}).")
  String topic = "sebridge-commands";

  @Option(
      names = "--producer-config",
      paramLabel = "FILE",
      description = "Kafka producer properties (security settings).")
  Path producerConfig;

  @Option(names = "--reason", description = "Why (for the audit trail).")
  String reason = "";

  @Option(names = "--requested-by", description = "On whose behalf (default: user@host).")
  String requestedBy;

  @Option(names = "--issuer", description = "The iss claim (default: ${DEFAULT-VALUE}).")
  String issuer = "sebridge-cli";

  @Option(names = "--ttl", description = "Validity, at most 10m (default: ${DEFAULT-VALUE}).")
  String ttl = "5m";

  @Option(names = "--print", description = "Print the signed command instead of publishing it.")
  boolean print;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var err = spec.commandLine().getErr();
    Duration validity;
    try {
      validity = ConfigType.DURATION_TYPE.parse(ttl);
    } catch (IllegalArgumentException e) {
      err.println("sebridge approve: --ttl " + e.getMessage());
      return Main.EXIT_CONFIG;
    }
    if (validity.compareTo(Duration.ofMinutes(10)) > 0
        || validity.isNegative()
        || validity.isZero()) {
      err.println(
          "sebridge approve: --ttl must be positive and at most 10m (agents refuse longer)");
      return Main.EXIT_CONFIG;
    }
    if (!print && kafka == null) {
      err.println("sebridge approve: --kafka BOOTSTRAP is required (or --print)");
      return Main.EXIT_CONFIG;
    }
    JWK jwk;
    try {
      jwk = JWK.parse(Files.readString(key, StandardCharsets.UTF_8));
    } catch (Exception e) {
      err.println("sebridge approve: --key " + key + " is not a private JWK: " + e.getMessage());
      return Main.EXIT_CONFIG;
    }
    String who =
        requestedBy != null
            ? requestedBy
            : System.getProperty("user.name") + "@" + InetAddress.getLocalHost().getHostName();
    byte[] command =
        new CommandSigner(jwk, issuer)
            .sign(new CommandSigner.Request(vmId, eventIds, who, reason, Instant.now(), validity));
    String id = CommandSigner.commandId(command);
    var out = spec.commandLine().getOut();
    if (print) {
      out.println(new String(command, StandardCharsets.UTF_8));
      out.flush();
      return 0;
    }
    Map<String, Object> extra = new HashMap<>();
    if (producerConfig != null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(producerConfig)) {
        p.load(r);
      }
      p.forEach((k, v) -> extra.put(k.toString(), v));
    }
    RecordMetadata m = KafkaCommandPublisher.publish(kafka, topic, vmId, command, extra);
    out.println(id);
    out.flush();
    err.println(
        "published to " + m.topic() + " partition " + m.partition() + " offset " + m.offset());
    return 0;
  }
}
