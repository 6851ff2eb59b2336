package dev.sebridge.fleet;

import dev.sebridge.azure.AzureCredentials;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The fleet service's configuration keys ({@code sebridge fleet serve}). */
public final class FleetKeys {
  private FleetKeys() {}

  public static final ConfigKey<String> BOOTSTRAP_SERVERS =
      ConfigKey.builder("fleet.kafka.bootstrap-servers", ConfigType.STRING)
          .required()
          .doc(
              "Kafka bootstrap servers of the cluster that holds the envelopes and commands topics.")
          .build();

  public static final ConfigKey<String> KAFKA_CLIENT =
      ConfigKey.builder("fleet.kafka.client.*", ConfigType.STRING)
          .secret()
          .doc(
              "Any Kafka client setting (security.protocol, sasl.*, ssl.*...), passed to Kafka"
                  + " Streams, its producers and consumers, and the admin client.")
          .build();

  public static final ConfigKey<String> ENVELOPES_TOPIC =
      ConfigKey.builder("fleet.topic.envelopes", ConfigType.STRING)
          .defaultValue("scheduled-events")
          .doc("The topic the agents publish envelopes to (keyed by vmId).")
          .build();

  public static final ConfigKey<String> COMMANDS_TOPIC =
      ConfigKey.builder("fleet.topic.commands", ConfigType.STRING)
          .defaultValue("sebridge-commands")
          .doc("The topic the agents read approval commands from (keyed by vmId).")
          .build();

  public static final ConfigKey<String> APPROVALS_TOPIC =
      ConfigKey.builder("fleet.topic.approvals", ConfigType.STRING)
          .defaultValue("sebridge-fleet-approvals")
          .doc(
              "The audit topic: every approval request is written here before any command is"
                  + " sent. Created when missing, kept a year.")
          .build();

  public static final ConfigKey<String> TOPIC_PREFIX =
      ConfigKey.builder("fleet.topic.prefix", ConfigType.STRING)
          .defaultValue("sebridge-fleet")
          .doc("Prefix of the topics the service creates for itself (views, repartitioning).")
          .build();

  public static final ConfigKey<Boolean> CENTRAL_EVENTS =
      ConfigKey.builder("fleet.central-events", ConfigType.BOOLEAN)
          .defaultValue(false)
          .doc(
              "Read Azure's central scheduled events (preview: Event Grid's"
                  + " Microsoft.ResourceNotifications.MaintenanceResources system topic delivered"
                  + " to <fleet.topic.prefix>-agentless-events, as deploy/azure/fleet.bicep sets it"
                  + " up): events of VMs without an agent, and beside each event the agents"
                  + " report, Azure's status and who saw it first. docs/fleet.md, \"VMs without an"
                  + " agent\".")
          .build();

  public static final ConfigKey<Integer> PARTITIONS =
      ConfigKey.builder("fleet.partitions", ConfigType.INT)
          .defaultValue(6)
          .doc(
              "Partitions of the topics the service creates (the audit topic included): how many"
                  + " instances can share the work.")
          .validator(n -> n < 1 ? Optional.of("must be at least 1") : Optional.empty())
          .build();

  public static final ConfigKey<Integer> REPLICATION =
      ConfigKey.builder("fleet.replication-factor", ConfigType.INT)
          .defaultValue(3)
          .doc("Replication factor of the topics the service creates (1 for a one-broker test).")
          .validator(n -> n < 1 ? Optional.of("must be at least 1") : Optional.empty())
          .build();

  public static final ConfigKey<Boolean> TOPICS_PRE_CREATED =
      ConfigKey.builder("fleet.topics.pre-created", ConfigType.BOOLEAN)
          .defaultValue(false)
          .doc(
              "The service's topics and Kafka Streams' changelogs are made beforehand (Event Hubs:"
                  + " by the deployment template; a cluster where the service may not manage"
                  + " topics): it creates and alters none, checks each at start (it exists, its"
                  + " partitions, compacted or not, kept long enough) and exits 2 naming every"
                  + " difference; its producer sends records of at most 1 MiB. docs/fleet.md,"
                  + " \"Pre-created topics\", lists them.")
          .build();

  public static final ConfigKey<String> APPLICATION_ID =
      ConfigKey.builder("fleet.application-id", ConfigType.STRING)
          .defaultValue("sebridge-fleet")
          .doc("Kafka Streams application id: every instance of one fleet service shares it.")
          .build();

  public static final ConfigKey<Path> STATE_DIR =
      ConfigKey.builder("fleet.state-dir", ConfigType.PATH)
          .defaultValue(Path.of("/var/lib/sebridge-fleet"))
          .doc("Kafka Streams' local directory (the stores themselves are in memory).")
          .build();

  public static final ConfigKey<Integer> HTTP_PORT =
      ConfigKey.builder("fleet.http.port", ConfigType.INT)
          .defaultValue(8080)
          .doc("Port of the API (and /healthz, /readyz, /metrics).")
          .validator(p -> p < 0 || p > 65535 ? Optional.of(p + " is not a port") : Optional.empty())
          .build();

  public static final ConfigKey<String> HTTP_BIND_ADDRESS =
      ConfigKey.builder("fleet.http.bind-address", ConfigType.STRING)
          .defaultValue("0.0.0.0")
          .doc("Address the API listens on (behind a load balancer: every instance answers).")
          .build();

  public static final ConfigKey<Path> SIGNING_KEY_FILE =
      ConfigKey.builder("fleet.signing.key-file", ConfigType.PATH)
          .doc(
              "The private JWK (ES256 or EdDSA, with a kid) commands are signed with; readable by"
                  + " its owner only (0600). Or fleet.signing.key-vault-key.")
          .build();

  public static final ConfigKey<URI> SIGNING_KEY_VAULT_KEY =
      ConfigKey.builder("fleet.signing.key-vault-key", ConfigType.HTTP_URL)
          .doc(
              "An Azure Key Vault EC P-256 key (https://<vault>.vault.azure.net/keys/<name>/<version>)"
                  + " that signs commands without its private part ever leaving the vault. The"
                  + " service's identity needs the Key Vault Crypto User role on it.")
          .build();

  public static final ConfigKey<String> SIGNING_KEY_ID =
      ConfigKey.builder("fleet.signing.key-id", ConfigType.STRING)
          .doc(
              "The kid commands name (the agents' trusted-keys must have it). Default: the JWK's"
                  + " kid, or the Key Vault key's name.")
          .build();

  public static final ConfigKey<String> SIGNING_ISSUER =
      ConfigKey.builder("fleet.signing.issuer", ConfigType.STRING)
          .defaultValue("sebridge-fleet")
          .doc("The iss claim of the commands the service signs.")
          .build();

  public static final ConfigKey<String> KEY_VAULT_CREDENTIAL =
      AzureCredentials.credentialKey(
          "fleet.signing", "Key Vault signing", "Key Vault Crypto User on the signing key");

  public static final ConfigKey<String> KEY_VAULT_CLIENT_ID =
      AzureCredentials.clientIdKey("fleet.signing", "Key Vault signing");

  public static final ConfigKey<Duration> COMMAND_LIFETIME =
      ConfigKey.builder("fleet.command-lifetime", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofMinutes(5))
          .doc("How long a command the service signs is valid (at most 10 minutes).")
          .validator(
              d ->
                  d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0
                      ? Optional.of("must be more than 0 and at most 10m")
                      : Optional.empty())
          .build();

  public static final ConfigKey<Integer> SILENT_AFTER =
      ConfigKey.builder("fleet.silent-after", ConfigType.INT)
          .defaultValue(3)
          .doc("Heartbeat intervals without any envelope after which an agent is silent.")
          .validator(n -> n < 1 ? Optional.of("must be at least 1") : Optional.empty())
          .build();

  public static final ConfigKey<Duration> CLOSED_RETENTION =
      ConfigKey.builder("fleet.closed-retention", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofHours(24))
          .doc(
              "How long a closed event stays queryable by id. Every instance keeps them in its"
                  + " heap (packed, about 1.4 KB a one-VM event): at 100,000 VMs, keep it times"
                  + " the events closing an hour at or under about 100,000, 60,000 where sebridge"
                  + " approves them all (docs/fleet.md, \"Sizing\").")
          .build();

  public static final ConfigKey<Boolean> CLOSED_VIEWS_PACKED =
      ConfigKey.builder("fleet.closed-views-packed", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "Write a closed event's view packed (deflated: about a quarter of its JSON) to the"
                  + " events' view topic and store; both forms are read either way. Set false on"
                  + " every instance, and wait fleet.closed-retention, before rolling back to a"
                  + " version of before 2026-11-29, which cannot read them (docs/fleet.md,"
                  + " \"Closed events, packed\").")
          .build();

  public static final ConfigKey<Duration> VM_RETENTION =
      ConfigKey.builder("fleet.vm-retention", ConfigType.DURATION_TYPE)
          .defaultValue(dev.sebridge.fleet.streams.Retention.VMS)
          .doc(
              "How long a VM may send nothing (no envelope, no heartbeat) before it is gone"
                  + " (scaled in, deleted): its view is deleted and its part in each open event"
                  + " closes as inferred (vanished).")
          .validator(ConfigKey.atLeast(Duration.ofDays(1), "1d"))
          .build();

  public static final ConfigKey<Duration> HISTORY_RETENTION =
      ConfigKey.builder("fleet.history-retention", ConfigType.DURATION_TYPE)
          .defaultValue(dev.sebridge.fleet.streams.Retention.HISTORY)
          .doc(
              "How long approval requests (and their Idempotency-Keys), policy decisions and"
                  + " finished rollouts are kept; a policy's rollout drops what is older.")
          .validator(ConfigKey.atLeast(Duration.ofDays(1), "1d"))
          .build();

  public static final ConfigKey<String> POLICIES =
      ConfigKey.builder("fleet.policies.*", ConfigType.STRING)
          .doc(
              "Central policies: fleet.policies.version (a number, in every decision and reason)"
                  + " and rules.<name>.{match.type, match.source, match.scale-set,"
                  + " match.duration-under, action (approve, rollout, never), dry-run,"
                  + " rollout.max-unavailable, rollout.group-by, rollout.settle, rollout.timeout}."
                  + " Rules are tried in name order; the first match acts. See docs/fleet.md.")
          .build();

  public static List<ConfigKey<?>> all() {
    List<ConfigKey<?>> all = new ArrayList<>();
    all.addAll(
        List.of(
            BOOTSTRAP_SERVERS,
            KAFKA_CLIENT,
            ENVELOPES_TOPIC,
            COMMANDS_TOPIC,
            APPROVALS_TOPIC,
            TOPIC_PREFIX,
            CENTRAL_EVENTS,
            PARTITIONS,
            REPLICATION,
            TOPICS_PRE_CREATED,
            APPLICATION_ID,
            STATE_DIR,
            HTTP_PORT,
            HTTP_BIND_ADDRESS));
    all.addAll(HttpKeys.all());
    all.addAll(AuthKeys.all());
    all.addAll(
        List.of(
            SIGNING_KEY_FILE,
            SIGNING_KEY_VAULT_KEY,
            SIGNING_KEY_ID,
            SIGNING_ISSUER,
            KEY_VAULT_CREDENTIAL,
            KEY_VAULT_CLIENT_ID,
            COMMAND_LIFETIME,
            SILENT_AFTER,
            CLOSED_RETENTION,
            CLOSED_VIEWS_PACKED,
            VM_RETENTION,
            HISTORY_RETENTION,
            POLICIES));
    all.addAll(InventoryKeys.all());
    all.addAll(AcknowledgeKeys.all());
    return List.copyOf(all);
  }

  /**
   * Reads the service's configuration from a file, {@code SEBRIDGE_FLEET_*} environment variables
   * and {@code --set} arguments; a {@link dev.sebridge.config.ConfigException} lists every problem,
   * each naming its key.
   */
  public static Configuration load(
      Path file, java.util.Map<String, String> env, List<String> sets) {
    dev.sebridge.config.ConfigLoader.Result read =
        new dev.sebridge.config.ConfigLoader(new dev.sebridge.config.KeyCatalog(all()))
            .read(file, env, sets);
    java.util.Set<ConfigProblem> problems = new java.util.LinkedHashSet<>(read.problems());
    problems.addAll(read.config().problems(all(), true));
    if (problems.isEmpty()) {
      problems.addAll(validate(read.config()));
    }
    if (!problems.isEmpty()) {
      throw new dev.sebridge.config.ConfigException(List.copyOf(problems));
    }
    return read.config();
  }

  /** The central policies; problems (each naming its key) go to {@code problems}. */
  public static dev.sebridge.fleet.rollout.Policies policies(
      Configuration c, List<ConfigProblem> problems) {
    return dev.sebridge.fleet.rollout.Policies.parse(c.passthrough(POLICIES), problems);
  }

  /** Problems spanning several keys. */
  public static List<ConfigProblem> validate(Configuration c) {
    List<ConfigProblem> problems = new ArrayList<>();
    AuthKeys.validate(c, problems);
    policies(c, problems);
    InventoryKeys.validate(c, problems);
    AcknowledgeKeys.validate(c, problems);
    boolean file = c.isSet(SIGNING_KEY_FILE);
    boolean vault = c.isSet(SIGNING_KEY_VAULT_KEY);
    if (file == vault) {
      problems.add(
          new ConfigProblem(
              SIGNING_KEY_FILE.name(),
              file
                  ? "set either fleet.signing.key-file or fleet.signing.key-vault-key, not both"
                  : "is required (or fleet.signing.key-vault-key): commands must be signed"));
    }
    return problems;
  }
}
