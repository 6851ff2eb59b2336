package dev.sebridge.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The configuration keys of the agent's core. Sinks and command sources declare their own. */
public final class CoreKeys {
  private CoreKeys() {}

  /** IMDS allows 5 requests per second per VM; we keep one in reserve for approvals. */
  public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(200);

  public static final ConfigKey<URI> IMDS_ENDPOINT =
      ConfigKey.builder("imds.endpoint", ConfigType.HTTP_URL)
          .defaultValue(URI.create("http://169.254.169.254"))
          .doc(
              "Base URL of the Instance Metadata Service. Change it only for the simulator or for"
                  + " hosts that need IMDS host discovery. Never reached through a proxy.")
          .build();

  public static final ConfigKey<String> IMDS_API_VERSION =
      ConfigKey.builder("imds.api-version", ConfigType.STRING)
          .defaultValue("2020-07-01")
          .doc("Scheduled Events API version (2020-07-01 adds DurationInSeconds).")
          .validator(CoreKeys::apiVersion)
          .build();

  public static final ConfigKey<String> IMDS_COMPUTE_API_VERSION =
      ConfigKey.builder("imds.compute-api-version", ConfigType.STRING)
          .defaultValue("2021-02-01")
          .doc("API version of /metadata/instance/compute, read once for the VM's identity.")
          .validator(CoreKeys::apiVersion)
          .build();

  public static final ConfigKey<Duration> IMDS_POLL_INTERVAL =
      ConfigKey.builder("imds.poll-interval", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(1))
          .doc(
              "Poll cadence (fixed rate, no drift). Below 200ms is refused: IMDS allows 5 requests"
                  + " per second per VM.")
          .validator(
              d ->
                  d.compareTo(MIN_POLL_INTERVAL) < 0
                      ? Optional.of(
                          ConfigType.formatDuration(d)
                              + " is below the minimum of 200ms (IMDS allows 5 requests per second)")
                      : Optional.empty())
          .build();

  public static final ConfigKey<Duration> IMDS_REQUEST_TIMEOUT =
      ConfigKey.builder("imds.request-timeout", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(5))
          .doc("Timeout of one IMDS request once IMDS has answered at least once (at most 10m).")
          .validator(timeout("imds.request-timeout"))
          .build();

  public static final ConfigKey<Duration> IMDS_FIRST_REQUEST_TIMEOUT =
      ConfigKey.builder("imds.first-request-timeout", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(150))
          .doc(
              "Timeout of requests until IMDS first answers: the first call enables Scheduled"
                  + " Events for the VM and may take up to 2 minutes (at most 10m).")
          .validator(timeout("imds.first-request-timeout"))
          .build();

  public static final ConfigKey<Duration> IMDS_MAX_BACKOFF =
      ConfigKey.builder("imds.max-backoff", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(5))
          .doc(
              "Longest wait between polls while IMDS fails (exponential backoff with jitter from"
                  + " the poll interval; HTTP 429 backs off harder). Kept short: a Spot eviction"
                  + " gives 30 s of notice.")
          .validator(positive("imds.max-backoff"))
          .build();

  /** HTTP 400 means our request is malformed: no retry fixes it, so poll at this slow pace. */
  public static final Duration BAD_REQUEST_PACE = Duration.ofSeconds(30);

  public static final ConfigKey<Path> STATE_DIR =
      ConfigKey.builder("state.dir", ConfigType.PATH)
          .defaultValue(defaultStateDir())
          .defaultDescription("/var/lib/sebridge (Linux), %ProgramData%\\sebridge (Windows)")
          .doc(
              "Durable state: the events reported so far, and the outbox of envelopes not yet confirmed by every sink. Created 0700; survives restarts"
                  + " and kill -9. One agent per directory (locked).")
          .build();

  public static final ConfigKey<List<String>> SINKS =
      ConfigKey.builder("sinks", ConfigType.LIST)
          .defaultValue(List.of("stdout"))
          .doc(
              "Comma list of sinks: stdout, file, and those of installed modules (kafka, eventhubs, loganalytics).")
          .validator(l -> l.isEmpty() ? Optional.of("names no sink") : Optional.empty())
          .build();

  public static final ConfigKey<Integer> HTTP_PORT =
      ConfigKey.builder("http.port", ConfigType.INT)
          .defaultValue(9464)
          .doc("Port of /healthz and /readyz; 0 turns the HTTP endpoint off.")
          .validator(
              p ->
                  p < 0 || p > 65535
                      ? Optional.of(p + " is not a port number (0 to 65535)")
                      : Optional.empty())
          .build();

  public static final ConfigKey<String> HTTP_BIND_ADDRESS =
      ConfigKey.builder("http.bind-address", ConfigType.STRING)
          .defaultValue("127.0.0.1")
          .doc("Address the HTTP endpoint binds to. Localhost unless you mean to expose it.")
          .build();

  public static final ConfigKey<Duration> SHUTDOWN_TIMEOUT =
      ConfigKey.builder("agent.shutdown-timeout", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(10))
          .doc("On SIGTERM/SIGINT, how long to wait for sinks to flush before exiting.")
          .validator(positive("agent.shutdown-timeout"))
          .build();

  public static final ConfigKey<Duration> PUBLISH_WARN_AFTER =
      ConfigKey.builder("publish.warn-after", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(30))
          .doc(
              "A sink failing this long gets one WARN (at once for a failure that will not heal),"
                  + " and one INFO when it delivers again; retries in between are quiet.")
          .validator(positive("publish.warn-after"))
          .build();

  public static final ConfigKey<Duration> PUBLISH_RETRY_MAX_BACKOFF =
      ConfigKey.builder("publish.max-backoff", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(10))
          .doc(
              "Longest wait between two attempts to deliver to a failing sink (exponential backoff"
                  + " with jitter; a circuit breaker per sink probes it again after this long).")
          .validator(positive("publish.max-backoff"))
          .build();

  public static final ConfigKey<Duration> PUBLISH_EXPORT_TIMEOUT =
      ConfigKey.builder("publish.export-timeout", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(30))
          .doc("Longest wait for a sink to confirm a batch before it is retried.")
          .validator(positive("publish.export-timeout"))
          .build();

  public static final ConfigKey<Integer> PUBLISH_BATCH_SIZE =
      ConfigKey.builder("publish.batch-size", ConfigType.INT)
          .defaultValue(100)
          .doc("Most envelopes handed to a sink in one call.")
          .validator(n -> n < 1 ? Optional.of("must be at least 1") : Optional.empty())
          .build();

  public static final ConfigKey<Long> OUTBOX_MAX_BYTES =
      ConfigKey.builder("outbox.max-bytes", ConfigType.SIZE)
          .defaultValue(256L * 1024 * 1024)
          .doc(
              "Size of the durable outbox (state.dir/outbox) above which heartbeats are dropped."
                  + " Scheduled-event transitions are never dropped: above it they are still stored,"
                  + " with an error logged and counted.")
          .validator(n -> n < 1024 * 1024 ? Optional.of("must be at least 1MiB") : Optional.empty())
          .build();

  public static final ConfigKey<String> COMMANDS_SOURCE =
      ConfigKey.builder("commands.source", ConfigType.STRING)
          .defaultValue("none")
          .doc(
              "Where signed approval commands come from: none, kafka (sink-kafka module), or"
                  + " eventhubs.")
          .build();

  public static final ConfigKey<Path> COMMANDS_TRUSTED_KEYS =
      ConfigKey.builder("commands.trusted-keys", ConfigType.PATH)
          .doc(
              "The public keys allowed to sign commands: a JWK set file, or a directory of JWK"
                  + " files. Each key needs a kid; ES256 (P-256) and EdDSA (Ed25519) only.")
          .build();

  public static final ConfigKey<Integer> COMMANDS_REJECTIONS_REPORTED =
      ConfigKey.builder("commands.rejections.reported", ConfigType.INT)
          .defaultValue(20)
          .doc(
              "Rejected commands per interval that get a result envelope and a log line of their"
                  + " own; the ones after that are counted and reported together, in one summary"
                  + " result and one log line at the end of the interval. Metrics count all.")
          .validator(n -> n < 0 ? Optional.of("must not be negative") : Optional.empty())
          .build();

  public static final ConfigKey<Duration> COMMANDS_REJECTIONS_INTERVAL =
      ConfigKey.builder("commands.rejections.interval", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofMinutes(1))
          .doc("The interval of commands.rejections.reported.")
          .validator(positive("commands.rejections.interval"))
          .build();

  public static final ConfigKey<List<String>> APPROVAL_POLICY =
      ConfigKey.builder("approval.policy", ConfigType.LIST)
          .defaultValue(List.of("none"))
          .doc(
              "Local auto-approval rules for new Scheduled events that list this VM: none,"
                  + " user-initiated (EventSource User), short-freeze (Freeze with 0 <="
                  + " DurationInSeconds < approval.short-freeze-max).")
          .validator(
              l ->
                  l.stream()
                      .filter(r -> !List.of("none", "user-initiated", "short-freeze").contains(r))
                      .findFirst()
                      .map(r -> "unknown rule '" + r + "' (none, user-initiated, short-freeze)"))
          .build();

  public static final ConfigKey<Duration> APPROVAL_SHORT_FREEZE_MAX =
      ConfigKey.builder("approval.short-freeze-max", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(9))
          .doc("short-freeze rule: a Freeze is short when DurationInSeconds is below this.")
          .validator(positive("approval.short-freeze-max"))
          .build();

  public static final ConfigKey<Boolean> APPROVAL_LEADER_ONLY =
      ConfigKey.builder("approval.leader-only", ConfigType.BOOLEAN)
          .defaultValue(false)
          .doc(
              "Only the VM whose name sorts first in an event's Resources approves it by policy (one"
                  + " approval releases the event for every VM listed).")
          .build();

  public static final ConfigKey<Boolean> APPROVAL_DRY_RUN =
      ConfigKey.builder("approval.dry-run", ConfigType.BOOLEAN)
          .defaultValue(false)
          .doc("Log and publish what would be approved (policy and commands); post nothing.")
          .build();

  public static final ConfigKey<List<String>> APPROVAL_ALLOW_TYPES =
      ConfigKey.builder("approval.allow-types", ConfigType.LIST)
          .defaultValue(List.of())
          .defaultDescription("(none)")
          .doc(
              "Event types that may be approved besides Freeze, Reboot and Redeploy, e.g."
                  + " Terminate,Preempt. Never approved otherwise, by command or by policy.")
          .build();

  public static final ConfigKey<Duration> HEARTBEAT_INTERVAL =
      ConfigKey.builder("heartbeat.interval", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofMinutes(5))
          .doc(
              "Period of the dev.sebridge.agent.heartbeat.v1 envelope (poll statistics, outbox"
                  + " state), so a central team can find silent agents.")
          .validator(ConfigKey.atLeast(Duration.ofSeconds(1), "1s"))
          .build();

  public static final ConfigKey<String> LOG_FORMAT =
      ConfigKey.builder("log.format", ConfigType.STRING)
          .defaultValue("text")
          .doc(
              "Log format on standard error: text (human-readable) or json (one JSON object per line).")
          .validator(
              f ->
                  f.equals("text") || f.equals("json")
                      ? Optional.empty()
                      : Optional.of("'" + f + "' is not text or json"))
          .build();

  public static List<ConfigKey<?>> all() {
    return List.of(
        IMDS_ENDPOINT,
        IMDS_API_VERSION,
        IMDS_COMPUTE_API_VERSION,
        IMDS_POLL_INTERVAL,
        IMDS_REQUEST_TIMEOUT,
        IMDS_FIRST_REQUEST_TIMEOUT,
        IMDS_MAX_BACKOFF,
        VmKeys.VM_ID,
        VmKeys.VM_NAME,
        VmKeys.VM_SMBIOS_UUID_FILE,
        VmKeys.VM_SMBIOS_UUID_ORDER,
        STATE_DIR,
        SINKS,
        HTTP_PORT,
        HTTP_BIND_ADDRESS,
        SHUTDOWN_TIMEOUT,
        PUBLISH_RETRY_MAX_BACKOFF,
        PUBLISH_WARN_AFTER,
        PUBLISH_EXPORT_TIMEOUT,
        PUBLISH_BATCH_SIZE,
        OUTBOX_MAX_BYTES,
        COMMANDS_SOURCE,
        COMMANDS_TRUSTED_KEYS,
        COMMANDS_REJECTIONS_REPORTED,
        COMMANDS_REJECTIONS_INTERVAL,
        APPROVAL_POLICY,
        APPROVAL_SHORT_FREEZE_MAX,
        APPROVAL_LEADER_ONLY,
        APPROVAL_DRY_RUN,
        APPROVAL_ALLOW_TYPES,
        HEARTBEAT_INTERVAL,
        LOG_FORMAT);
  }

  static Path defaultStateDir() {
    boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
    if (windows) {
      String programData = System.getenv().getOrDefault("ProgramData", "C:\\ProgramData");
      return Path.of(programData, "sebridge");
    }
    return Path.of("/var/lib/sebridge");
  }

  private static Optional<String> apiVersion(String v) {
    return v.matches("\\d{4}-\\d{2}-\\d{2}")
        ? Optional.empty()
        : Optional.of("'" + v + "' is not an API version (YYYY-MM-DD)");
  }

  /**
   * An IMDS request's timeout: at most 10 minutes (longer never ends in practice, and overflows).
   */
  private static java.util.function.Function<Duration, Optional<String>> timeout(String key) {
    return d ->
        // (checked on the defaults while this class initialises: no constant of its own)
        d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0
            ? Optional.of("must be positive and at most 10m")
            : Optional.empty();
  }

  private static java.util.function.Function<Duration, Optional<String>> positive(String key) {
    return d -> d.isNegative() || d.isZero() ? Optional.of("must be positive") : Optional.empty();
  }
}
