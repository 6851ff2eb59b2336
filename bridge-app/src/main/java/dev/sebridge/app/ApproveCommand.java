package dev.sebridge.app;

import com.nimbusds.jose.jwk.JWK;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.config.ConfigType;
import dev.sebridge.sink.eventhubs.EventHubsCommandPublisher;
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
      names = "--eventhubs",
      paramLabel = "NAMESPACE",
      description =
          "Event Hubs namespace (myns.servicebus.windows.net), with your Microsoft Entra ID"
              + " identity (Azure CLI login, environment, managed identity): it needs Azure Event"
              + " Hubs Data Sender on the commands hub.")
  String eventhubs;

  @Option(
      names = "--eventhubs-connection-string-env",
      paramLabel = "VARIABLE",
      description =
          "Instead of --eventhubs: the environment variable holding an Event Hubs connection"
              + " string (a secret, so never on the command line).")
  String eventhubsConnectionStringEnv;

  @Option(
      names = "--eventhub",
      paramLabel = "NAME",
      description =
          "Commands hub (default: ${DEFAULT-VALUE}; a connection string's EntityPath wins).")
  String eventhub = "sebridge-commands";

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

  /** Where environment variables come from (tests set their own). */
  static java.util.function.Function<String, String> environment = System::getenv;

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
    int targets =
        (kafka != null ? 1 : 0)
            + (eventhubs != null ? 1 : 0)
            + (eventhubsConnectionStringEnv != null ? 1 : 0);
    if (!print && targets != 1) {
      err.println(
          "sebridge approve: give one of --kafka BOOTSTRAP, --eventhubs NAMESPACE,"
              + " --eventhubs-connection-string-env VARIABLE (or --print)");
      return Main.EXIT_CONFIG;
    }
    String connectionString = null;
    if (eventhubsConnectionStringEnv != null) {
      connectionString = environment.apply(eventhubsConnectionStringEnv);
      if (connectionString == null || connectionString.isBlank()) {
        err.println(
            "sebridge approve: --eventhubs-connection-string-env: "
                + eventhubsConnectionStringEnv
                + " is not set");
        return Main.EXIT_CONFIG;
      }
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
    if (connectionString != null || eventhubs != null) {
      EventHubsCommandPublisher.Published p =
          connectionString != null
              ? EventHubsCommandPublisher.publish(connectionString, eventhub, vmId, command)
              : EventHubsCommandPublisher.publishAsOperator(eventhubs, eventhub, vmId, command);
      out.println(id);
      out.flush();
      err.println("published to event hub " + p.hub() + " partition " + p.partitionId());
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
