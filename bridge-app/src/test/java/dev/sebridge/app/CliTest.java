package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
  }

  @Test
  void checkConfigListsEveryProblemAndExitsTwo() throws Exception {
    Path f = dir.resolve("c.yaml");
    Files.writeString(
        f, "imds:\n  poll-interval: 10ms\nsinks: file,kafka,eventhubs,pubsub\nhttp:\n  port: -1\n");
    assertThat(run("check-config", "--config", f.toString())).isEqualTo(2);
    assertThat(err.toString())
        .contains("imds.poll-interval: 10ms is below the minimum of 200ms")
        .contains("http.port: -1 is not a port number")
        .contains("unknown sink 'pubsub'")
        .contains("sink.eventhubs.namespace: is required")
        .contains("sink.file.path: is required")
        .contains("sink.kafka.bootstrap-servers: is required");
  }

  @Test
  void checkConfigSaysHowTheKafkaCommandsTopicMustBeConfigured() throws Exception {
    Path keys = dir.resolve("keys.jwks");
    Files.writeString(
        keys, dev.sebridge.command.TestKeys.trustedSet(dev.sebridge.command.TestKeys.es256("k")));
    assertThat(
            run(
                "check-config",
                "--set",
                "commands.source=kafka",
                "--set",
                "commands.kafka.bootstrap-servers=broker:9092",
                "--set",
                "commands.trusted-keys=" + keys))
        .as(err.toString())
        .isZero();
    assertThat(out.toString())
        .contains("note: the commands topic sebridge-commands must be stored uncompressed")
        .contains(
            "--entity-name sebridge-commands --add-config"
                + " compression.type=uncompressed,max.message.bytes=65536");
  }

  @Test
  void checkConfigNamesEachBadEventHubsKeyAndNeverPrintsTheConnectionString() throws Exception {
    assertThat(
            run("check-config", "--set", "sinks=eventhubs", "--set", "commands.source=eventhubs"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("sink.eventhubs.namespace: is required (or set sink.eventhubs.connection-string")
        .contains("sink.eventhubs.name: is required")
        .contains("commands.eventhubs.namespace: is required")
        .doesNotContain("commands.eventhubs.name:");
    err.getBuffer().setLength(0);
    String secret = "c2VjcmV0LWtleS12YWx1ZQ==";
    assertThat(
            run(
                "check-config",
                "--set",
                "sinks=eventhubs",
                "--set",
                "sink.eventhubs.namespace=https://myns.servicebus.windows.net",
                "--set",
                "sink.eventhubs.name=events",
                "--set",
                "commands.source=eventhubs",
                "--set",
                "commands.eventhubs.connection-string=SharedAccessKey=" + secret,
                "--set",
                "commands.eventhubs.consumer-groups=0"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("sink.eventhubs.namespace: must be a host name")
        .contains("commands.eventhubs.connection-string: must be an Event Hubs connection string")
        .contains("commands.eventhubs.consumer-groups: must be 1 to 1000")
        .doesNotContain(secret);
    String good =
        "Endpoint=sb://myns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey="
            + secret
            + ";EntityPath=events";
    assertThat(
            run(
                "check-config",
                "--set",
                "sinks=eventhubs",
                "--set",
                "sink.eventhubs.connection-string=" + good,
                "--set",
                "commands.source=eventhubs",
                "--set",
                "commands.eventhubs.namespace=myns.servicebus.windows.net",
                "--set",
                "commands.eventhubs.client-id=7d1f3c2a-1111-4222-8333-944445555666",
                "--set",
                "commands.trusted-keys=" + trustedKeys()))
        .as(err.toString())
        .isZero();
    assertThat(out.toString() + err.toString()).doesNotContain(secret);
    assertThat(
            run(
                "check-config",
                "--set",
                "sinks=eventhubs",
                "--set",
                "sink.eventhubs.connection-string=" + good,
                "--set",
                "sink.eventhubs.name=other"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("sink.eventhubs.name: is other but the connection string's EntityPath")
        .doesNotContain(secret);
  }

  /** A trusted key file, for configurations that read commands. */
  Path trustedKeys() throws Exception {
    Path f = dir.resolve("trusted.jwks");
    Files.writeString(
        f,
        new com.nimbusds.jose.jwk.JWKSet(
                dev.sebridge.command.TestKeys.es256("cli-test").toPublicJWK())
            .toString());
    return f;
  }

  /**
   * A --wait or --watch the command cannot keep is a usage error before anything is sent. Before,
   * the approval or the rollout was made first, and the wait then failed on an overflow (10^16
   * seconds in milliseconds). The longest allowed is taken (it is sent, and fails on the port
   * nothing listens at).
   */
  @Test
  void aWaitOrWatchTooLongIsRefusedBeforeAnythingIsSent() throws Exception {
    Path token = dir.resolve("approver-token");
    Files.writeString(token, "approver-token-0123456789");
    // nothing listens at port 9: a request sent fails, with exit code 1
    String[] where = {"--url", "http://127.0.0.1:9", "--token-file", token.toString()};
    java.util.function.BiFunction<String, String, String[]> approve =
        (option, value) ->
            concat(new String[] {"fleet", "approve", "E-1", "--reason", "r", option, value}, where);
    java.util.function.BiFunction<String, String, String[]> rollout =
        (option, value) ->
            concat(
                new String[] {
                  "fleet",
                  "rollout",
                  "E-1",
                  "--max-unavailable",
                  "1",
                  "--reason",
                  "r",
                  option,
                  value
                },
                where);
    for (String[] args :
        java.util.List.of(
            approve.apply("--wait", "99999999999999999"),
            approve.apply("--wait", "86401"),
            rollout.apply("--watch", "99999999999999999"),
            rollout.apply("--watch", "2592001"))) {
      err.getBuffer().setLength(0);
      assertThat(run(args)).as(String.join(" ", args)).isEqualTo(2);
      assertThat(err.toString()).containsAnyOf("--wait: at most 86400", "--watch: at most 2592000");
    }
    for (String[] args :
        java.util.List.of(approve.apply("--wait", "86400"), rollout.apply("--watch", "2592000"))) {
      assertThat(run(args)).as("sent: " + String.join(" ", args)).isEqualTo(1);
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void checkConfigNamesEachBadLogAnalyticsKey() {
    assertThat(
            run(
                "check-config",
                "--set",
                "sinks=loganalytics",
                "--set",
                "sink.loganalytics.endpoint=http://dce.example.ingest.monitor.azure.com",
                "--set",
                "sink.loganalytics.rule-id=my-rule",
                "--set",
                "sink.loganalytics.credential=password"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("sink.loganalytics.endpoint: must be https")
        .contains("sink.loganalytics.rule-id: must be a DCR immutable id")
        .contains("sink.loganalytics.credential: must be one of managed-identity");
    assertThat(
            run(
                "check-config",
                "--set",
                "sinks=loganalytics",
                "--set",
                "sink.loganalytics.endpoint=https://dcr-1.westeurope-1.ingest.monitor.azure.com",
                "--set",
                "sink.loganalytics.rule-id=dcr-0123456789abcdef0123456789abcdef"))
        .isZero();
    assertThat(out.toString())
        .contains("sink.loganalytics.rule-id = dcr-0123456789abcdef0123456789abcdef");
  }

  @Test
  void checkConfigRefusesWeakenedKafkaDeliveryGuarantees() {
    assertThat(
            run(
                "check-config",
                "--set",
                "sinks=kafka",
                "--set",
                "sink.kafka.bootstrap-servers=127.0.0.1:9092",
                "--set",
                "sink.kafka.producer.acks=1",
                "--set",
                "sink.kafka.producer.sasl.jaas.config=secret-stuff"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("sink.kafka.producer.acks: must be all");
    assertThat(
            run(
                "check-config",
                "--set",
                "sinks=kafka",
                "--set",
                "sink.kafka.bootstrap-servers=h:9092",
                "--set",
                "sink.kafka.producer.sasl.jaas.config=hunter2"))
        .isZero();
    assertThat(out.toString())
        .contains("sink.kafka.producer.sasl.jaas.config = ********")
        .doesNotContain("hunter2");
  }

  @Test
  void checkConfigPrintsAValidConfiguration() {
    assertThat(run("check-config", "--set", "sinks=stdout", "--set", "imds.poll-interval=500ms"))
        .isZero();
    assertThat(out.toString())
        .contains("configuration is valid")
        .contains("imds.poll-interval = 500ms");
  }

  @Test
  void unknownCommandsAndOptionsAreUsageErrors() {
    assertThat(run("frobnicate")).isEqualTo(2);
    assertThat(run("run", "--no-such-option")).isEqualTo(2);
  }

  @Test
  void schemaPrintsEachSchema() throws Exception {
    for (String kind : new String[] {"envelope", "command", "result", "heartbeat"}) {
      out.getBuffer().setLength(0);
      assertThat(run("schema", kind)).isZero();
      var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
      assertThat(tree.get("$schema").asText())
          .isEqualTo("https://json-schema.org/draft/2020-12/schema");
      assertThat(tree.get("$id").asText()).startsWith("urn:sebridge:schema:");
    }
    assertThat(run("schema", "nonsense")).isEqualTo(2);
    assertThat(err.toString()).contains("one of: envelope, result, heartbeat, command");
  }

  @Test
  void keygenThenApprovePrintsACommandTheAgentWouldVerify() throws Exception {
    assertThat(
            run(
                "keygen",
                "--out",
                dir.resolve("keys").toString(),
                "--alg",
                "EdDSA",
                "--kid",
                "k-test"))
        .isZero();
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("keys/private.jwk"))))
        .isEqualTo("rw-------");
    assertThat(run("keygen", "--out", dir.resolve("keys").toString())).isEqualTo(2);
    out.getBuffer().setLength(0);
    assertThat(
            run(
                "approve",
                "--event-id",
                "E-9",
                "--vm",
                "vm-9",
                "--key",
                dir.resolve("keys/private.jwk").toString(),
                "--print"))
        .isZero();
    byte[] command = out.toString().trim().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    var trusted =
        dev.sebridge.command.TrustedKeys.load(
            dir.resolve("keys/public.jwks"), "commands.trusted-keys");
    var verdict =
        new dev.sebridge.command.CommandVerifier(trusted, "vm-9", java.time.Clock.systemUTC())
            .verify(command);
    assertThat(verdict).isInstanceOf(dev.sebridge.command.Verdict.Valid.class);
    assertThat(
            run(
                "approve",
                "--event-id",
                "E",
                "--vm",
                "v",
                "--key",
                dir.resolve("keys/private.jwk").toString(),
                "--print",
                "--ttl",
                "15m"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("at most 10m");
  }

  @Test
  void commandsNeedTrustedKeys() {
    assertThat(
            run(
                "check-config",
                "--set",
                "commands.source=kafka",
                "--set",
                "commands.kafka.bootstrap-servers=h:9092"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("commands.trusted-keys: is required when commands.source is kafka");
    assertThat(run("check-config", "--set", "approval.policy=user-initiated,yolo")).isEqualTo(2);
    assertThat(err.toString()).contains("approval.policy: unknown rule 'yolo'");
  }

  @Test
  void helpListsTheCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString())
        .contains("run")
        .contains("simulate")
        .contains("demo")
        .contains("check-config");
  }

  @Test
  void theAgentsCommandLineBuildsOnlyTheCommandItRuns() {
    // What the agent does not run, it does not load (benchmarks/FOOTPRINT.md): `run` alone.
    assertThat(Main.commandLine("run", "--set", "imds.poll-interval=1s").getSubcommands())
        .containsOnlyKeys("run");
    assertThat(Main.commandLine("fleet", "vms").getSubcommands()).containsOnlyKeys("fleet");
    // Help, version and usage errors see every command.
    for (String[] args : new String[][] {{}, {"--help"}, {"help", "run"}, {"frobnicate"}}) {
      assertThat(Main.commandLine(args).getSubcommands())
          .hasSize(Main.SUBCOMMANDS.size())
          .containsKeys("run", "fleet", "help", "demo");
    }
    assertThat(run("help", "run")).isZero();
    assertThat(out.toString()).contains("Runs the agent until SIGTERM/SIGINT.");
    assertThat(run("frobnicate")).isEqualTo(2);
    assertThat(err.toString()).contains("Unmatched argument").contains("frobnicate");
  }

  @Test
  void fleetServeExitsTwoNamingEachBadKey() throws Exception {
    assertThat(run("fleet", "serve", "--set", "fleet.http.port=70000", "--set", "fleet.bogus=1"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("fleet.kafka.bootstrap-servers: is required")
        .contains("fleet.http.port: 70000 is not a port")
        .contains("fleet.bogus: is not a known configuration key");

    Path key = dir.resolve("key.jwk");
    Files.writeString(key, "{}");
    err.getBuffer().setLength(0);
    assertThat(
            run(
                "fleet",
                "serve",
                "--set",
                "fleet.kafka.bootstrap-servers=127.0.0.1:1",
                "--set",
                "fleet.signing.key-file=" + key))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("fleet.auth.tokens-file: no way to authenticate")
        .doesNotContain("fleet.signing.key-file");
  }

  @Test
  void fleetServeExitsTwoNamingTheBadPolicyKey() throws Exception {
    assertThat(
            run(
                "fleet",
                "serve",
                "--set",
                "fleet.kafka.bootstrap-servers=127.0.0.1:1",
                "--set",
                "fleet.policies.rules.web.action=reboot-everything",
                "--set",
                "fleet.policies.rules.web.rollout.max-unavailable=0",
                "--set",
                "fleet.policies.rules.freeze.match.duration-under=soon",
                "--set",
                "fleet.policies.rules.freeze.action=approve",
                "--set",
                "fleet.policies.rules.a|b.action=approve"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("fleet.policies.version: is required with rules")
        .contains("fleet.policies.rules.a|b: a rule's name is 1 to 64 letters, digits")
        .contains("fleet.policies.rules.web.action: must be approve, rollout or never")
        .contains("fleet.policies.rules.web.rollout: only with action: rollout")
        .contains("fleet.policies.rules.freeze.match.duration-under: is not a duration");
  }

  @Test
  void partitionPrintsThePartitionAndTheCanonicalKeyOfAnyCase() throws Exception {
    assertThat(
            run("partition", "--vm", "5C2E3C9A-0000-4000-8000-000000000000", "--partitions", "32"))
        .isZero();
    assertThat(out.toString())
        .contains("partition 29 of 32; key 5c2e3c9a-0000-4000-8000-000000000000");
    assertThat(run("partition", "--vm", "x", "--partitions", "0")).isEqualTo(2);
  }

  /** What a stub of the fleet service answers. */
  record Answer(int status, String body, java.util.Map<String, String> headers) {
    Answer(int status, String body) {
      this(status, body, java.util.Map.of());
    }
  }

  /** How the stub answers a request. */
  interface Stub {
    Answer answer(com.sun.net.httpserver.HttpExchange ex) throws java.io.IOException;
  }

  /** A stub of the fleet service on loopback, started: JSON answers under {@code prefix}. */
  static com.sun.net.httpserver.HttpServer serve(String prefix, Stub stub)
      throws java.io.IOException {
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        prefix,
        ex -> {
          Answer a = stub.answer(ex);
          byte[] b = a.body().getBytes(java.nio.charset.StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          a.headers().forEach(ex.getResponseHeaders()::set);
          ex.sendResponseHeaders(a.status(), b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    server.start();
    return server;
  }

  /**
   * {@code fleet rollouts r1 --resume} reads the rollout first and sends the halt it resumes, so a
   * retry of the resume (the same body) resumes nothing once the rollout halted again; a rollout
   * that is not halted is said so, and nothing is posted.
   */
  @Test
  void fleetRolloutsResumeNamesTheHaltItRead() throws Exception {
    java.util.List<String> posted = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicBoolean halted =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicBoolean timeless =
        new java.util.concurrent.atomic.AtomicBoolean(false);
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/rollouts/r1",
            ex -> {
              if (ex.getRequestMethod().equals("POST")) {
                posted.add(
                    new String(
                        ex.getRequestBody().readAllBytes(),
                        java.nio.charset.StandardCharsets.UTF_8));
                return new Answer(202, "{\"rolloutId\":\"r1\",\"action\":\"resume\"}");
              }
              return new Answer(
                  200,
                  halted.get()
                      ? "{\"id\":\"r1\",\"state\":\"halted\",\"halt\":{\"vmId\":\"vm-1\","
                          + "\"reason\":\"web-1 is not back in time\""
                          + (timeless.get() ? "" : ",\"at\":\"2026-11-28T10:00:01.5Z\"")
                          + "}}"
                      : "{\"id\":\"r1\",\"state\":\"running\"}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "approver-token-0123456789");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      String[] resume = {
        "fleet",
        "rollouts",
        "r1",
        "--resume",
        "--reason",
        "checked",
        "--url",
        url,
        "--token-file",
        token.toString()
      };
      assertThat(run(resume)).as(err.toString()).isZero();
      assertThat(out.toString()).contains("web-1 is not back in time");
      assertThat(posted)
          .singleElement()
          .satisfies(
              b ->
                  assertThat(
                          new com.fasterxml.jackson.databind.ObjectMapper()
                              .readTree(b)
                              .path("halt")
                              .asText())
                      .isEqualTo("2026-11-28T10:00:01.5Z"));
      halted.set(false);
      assertThat(run(resume)).isEqualTo(1);
      assertThat(err.toString()).contains("rollout r1 is not halted");
      assertThat(posted).hasSize(1);
      // A halt recorded without its time (before 2026-11-28): resumed without naming it.
      halted.set(true);
      timeless.set(true);
      assertThat(run(resume)).as(err.toString()).isZero();
      assertThat(posted).hasSize(2);
      assertThat(posted.get(1)).doesNotContain("halt");
    } finally {
      server.stop(0);
    }
  }

  /**
   * {@code fleet approve --wait} reads the request until every VM answered, riding out what a busy
   * or restarting service answers (503 with Retry-After, a 502 without JSON from what is in front
   * of it), no sooner than the Retry-After; an answer reading again would not change (403) ends the
   * wait with the request's id and no stack trace. Before, any of them ended the command with an
   * exception.
   */
  @Test
  void fleetApproveWaitRidesOutABusyServiceAndStopsAtARefusal() throws Exception {
    java.util.Deque<Answer> reads = new java.util.concurrent.ConcurrentLinkedDeque<>();
    java.util.List<Long> readAt = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/",
            ex -> {
              String path = ex.getRequestURI().getPath();
              if (path.equals("/api/events/E-1/approve")) {
                ex.getRequestBody().readAllBytes();
                return new Answer(
                    202,
                    "{\"requestId\":\"req-1\",\"eventId\":\"E-1\",\"requestedBy\":\"alice\","
                        + "\"commands\":{\"vm-1\":\"c-1\"}}");
              }
              if (path.equals("/api/approvals/req-1")) {
                readAt.add(System.nanoTime());
                Answer a = reads.poll();
                return a != null
                    ? a
                    : new Answer(
                        200,
                        "{\"requestId\":\"req-1\",\"complete\":true,\"vms\":{\"vm-1\":"
                            + "{\"commandId\":\"c-1\",\"outcome\":\"accepted\","
                            + "\"resultAt\":\"2026-11-28T10:00:00Z\"}}}");
              }
              return new Answer(404, "{\"error\":\"no such event\"}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "approver-token-0123456789");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      String[] approve = {
        "fleet",
        "approve",
        "E-1",
        "--reason",
        "r",
        "--wait",
        "30",
        "--url",
        url,
        "--token-file",
        token.toString()
      };
      reads.add(new Answer(404, "{\"error\":\"no such request\"}"));
      reads.add(
          new Answer(
              503,
              "{\"error\":\"too many requests at once; try again\"}",
              java.util.Map.of("Retry-After", "1")));
      reads.add(new Answer(502, "<html>bad gateway</html>"));
      assertThat(run(approve)).as(err.toString()).isZero();
      assertThat(out.toString()).contains("vm-1").contains("accepted");
      assertThat(readAt).hasSize(4);
      // The read after the 503 waited for its Retry-After (at least; polls are 500 ms apart).
      assertThat(readAt.get(2) - readAt.get(1))
          .isGreaterThanOrEqualTo(java.util.concurrent.TimeUnit.SECONDS.toNanos(1));

      readAt.clear();
      reads.add(new Answer(503, "{\"error\":\"the views are closed\"}"));
      reads.add(new Answer(403, "{\"error\":\"approver role required\"}"));
      assertThat(run(approve)).isEqualTo(1);
      assertThat(readAt).hasSize(2);
      assertThat(err.toString())
          .contains("request req-1 was made; waiting for its results failed: 403")
          .doesNotContain("\tat ");

      // A wait that ends with the request read (not every VM answered) names no failure read
      // before: the 404 of the first read is not why it went on.
      out.getBuffer().setLength(0);
      reads.add(new Answer(404, "{\"error\":\"no such request\"}"));
      for (int i = 0; i < 100; i++) {
        reads.add(
            new Answer(
                200,
                "{\"requestId\":\"req-1\",\"complete\":false,\"vms\":{\"vm-1\":"
                    + "{\"commandId\":\"c-1\"}}}"));
      }
      approve[6] = "2"; // --wait 2
      assertThat(run(approve)).isEqualTo(1);
      assertThat(out.toString())
          .contains("some VMs have not answered within 2s: see GET /api/approvals/req-1")
          .doesNotContain("last read");
    } finally {
      server.stop(0);
    }
  }

  /** {@code fleet rollout --watch} rides out a busy service the same way, to the rollout's end. */
  @Test
  void fleetRolloutWatchRidesOutABusyService() throws Exception {
    java.util.Deque<Answer> reads = new java.util.concurrent.ConcurrentLinkedDeque<>();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/rollouts",
            ex -> {
              if (ex.getRequestMethod().equals("POST")) {
                ex.getRequestBody().readAllBytes();
                return new Answer(202, "{\"rolloutId\":\"r-1\"}");
              }
              Answer a = reads.poll();
              return a != null
                  ? a
                  : new Answer(
                      200, "{\"id\":\"r-1\",\"state\":\"completed\",\"waves\":[],\"counts\":{}}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "approver-token-0123456789");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      reads.add(new Answer(503, "{\"error\":\"busy\"}", java.util.Map.of("Retry-After", "1")));
      reads.add(new Answer(200, "{\"id\":\"r-1\",\"state\":\"running\",\"waves\":[]}"));
      assertThat(
              run(
                  "fleet",
                  "rollout",
                  "E-1",
                  "--max-unavailable",
                  "1",
                  "--reason",
                  "r",
                  "--watch",
                  "30",
                  "--url",
                  url,
                  "--token-file",
                  token.toString()))
          .as(err.toString())
          .isZero();
      assertThat(out.toString()).contains("rollout r-1 completed");
      assertThat(reads).isEmpty();
    } finally {
      server.stop(0);
    }
  }

  /** A campaign rolls out as its open events with a VM Scheduled, as the service names them. */
  @Test
  void fleetRolloutOfACampaignRollsOutItsScheduledEvents() throws Exception {
    java.util.List<String> posted = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/",
            ex -> {
              String path = ex.getRequestURI().getPath();
              if (path.equals("/api/campaigns/c-1")) {
                return new Answer(
                    200,
                    "{\"campaignId\":\"c-1\",\"eventIds\":[\"E-0\",\"E-1\",\"E-2\"],"
                        + "\"scheduledEventIds\":[\"E-1\",\"E-2\"]}");
              }
              if (path.equals("/api/rollouts")) {
                posted.add(
                    new String(
                        ex.getRequestBody().readAllBytes(),
                        java.nio.charset.StandardCharsets.UTF_8));
                return new Answer(202, "{\"rolloutId\":\"r-1\"}");
              }
              return new Answer(404, "{\"error\":\"no such campaign\"}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "approver-token-0123456789");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      String[] common = {
        "--reason", "host update", "--watch", "0", "--url", url, "--token-file", token.toString()
      };
      java.util.List<String> args =
          new java.util.ArrayList<>(java.util.List.of("fleet", "rollout", "--campaign", "c-1"));
      args.addAll(java.util.List.of(common));
      assertThat(run(args.toArray(String[]::new))).as(err.toString()).isZero();
      assertThat(posted).hasSize(1);
      assertThat(
              new com.fasterxml.jackson.databind.ObjectMapper()
                  .readTree(posted.get(0))
                  .get("eventIds")
                  .toString())
          .isEqualTo("[\"E-1\",\"E-2\"]");
      args.add(3, "E-7"); // events and a campaign: one or the other
      assertThat(run(args.toArray(String[]::new))).isEqualTo(2);
    } finally {
      server.stop(0);
    }
  }

  /** {@code fleet vms --coverage}: the counts, and every page of the VMs without an agent. */
  @Test
  void fleetVmsCoverageShowsTheCountsAndTheVmsWithoutAnAgent() throws Exception {
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/coverage",
            ex -> {
              String path = ex.getRequestURI().getPath();
              String q = String.valueOf(ex.getRequestURI().getRawQuery());
              if (path.equals("/api/coverage")) {
                return new Answer(
                    200,
                    "{\"generatedAt\":\"2026-11-26T00:00:00Z\",\"refreshedAt\":"
                        + "\"2026-11-26T00:00:00Z\",\"inventory\":5,\"live\":2,\"silent\":1,"
                        + "\"withoutAgent\":2,\"unknown\":1}");
              }
              boolean second = q.contains("cursor=p2");
              return new Answer(
                  200,
                  "{\"generatedAt\":\"2026-11-26T00:00:00Z\",\"vms\":[{\"vmId\":\""
                      + (second ? "vm-5\",\"name\":\"api_0" : "vm-4\",\"name\":\"web-4")
                      + "\",\"tags\":{}}]"
                      + (second ? "" : ",\"next\":\"p2\"")
                      + "}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "reader-token-0123456789ab");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThat(run("fleet", "vms", "--coverage", "--url", url, "--token-file", token.toString()))
          .as(err.toString())
          .isZero();
      assertThat(out.toString())
          .contains("5 VMs; 2 with a live agent, 1 silent, 2 without an agent")
          .contains("does not list, counted in no group): 1")
          .contains("web-4")
          .contains("api_0");
      assertThat(
              run(
                  "fleet",
                  "vms",
                  "--coverage",
                  "--silent",
                  "--url",
                  url,
                  "--token-file",
                  token.toString()))
          .isEqualTo(2);
    } finally {
      server.stop(0);
    }
  }

  /** The fleet's lists come a page at a time: the CLI follows each page's next to the end. */
  @Test
  void fleetVmsFollowsEveryPage() throws Exception {
    java.util.List<String> queries = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/vms",
            ex -> {
              String q = ex.getRequestURI().getRawQuery();
              queries.add(q);
              int page = q.contains("cursor=p2") ? 2 : q.contains("cursor=p3") ? 3 : 1;
              return new Answer(
                  200,
                  "{\"generatedAt\":\"2026-11-26T00:00:00Z\",\"vms\":[{\"vmId\":\"vm-"
                      + page
                      + "\",\"name\":\"web-"
                      + page
                      + "\",\"silent\":false,\"polls\":{},\"openEvents\":[]}]"
                      + (page < 3 ? ",\"next\":\"p" + (page + 1) + "\"" : "")
                      + "}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "reader-token-0123456789ab");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThat(run("fleet", "vms", "--url", url, "--token-file", token.toString()))
          .as(err.toString())
          .isZero();
      assertThat(out.toString()).contains("web-1").contains("web-2").contains("web-3");
      assertThat(queries)
          .containsExactly("limit=1000", "limit=1000&cursor=p2", "limit=1000&cursor=p3");
      // --json: the pages' VMs as one document, indented.
      out.getBuffer().setLength(0);
      assertThat(run("fleet", "vms", "--json", "--url", url, "--token-file", token.toString()))
          .isZero();
      com.fasterxml.jackson.databind.JsonNode printed =
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
      assertThat(printed.path("vms")).hasSize(3);
      assertThat(out.toString()).contains("\n  \"vms\" : [");
    } finally {
      server.stop(0);
    }
  }

  /** {@code fleet rollouts}: its filters as the API's query, every page followed. */
  @Test
  void fleetRolloutsPassesItsFiltersAndFollowsEveryPage() throws Exception {
    java.util.List<String> queries = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/rollouts",
            ex -> {
              String q = ex.getRequestURI().getRawQuery();
              queries.add(q);
              boolean first = !q.contains("cursor=p2");
              return new Answer(
                  200,
                  "{\"generatedAt\":\"2026-11-27T12:00:00Z\",\"rollouts\":[{\"id\":\"r-"
                      + (first ? "1" : "2")
                      + "\",\"state\":\"running\",\"requestedBy\":\"alice\",\"reason\":"
                      + "\"patch\",\"vms\":[],\"waves\":[]}]"
                      + (first ? ",\"next\":\"p2\"" : "")
                      + "}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "reader-token-0123456789ab");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThat(
              run(
                  "fleet",
                  "rollouts",
                  "--state",
                  "RUNNING", // (the contract's states are lower case)
                  "--zone",
                  "2",
                  "--scale-set",
                  "ss 1",
                  "--resource-group",
                  "rg-prod",
                  "--type",
                  "Reboot",
                  "--source",
                  "Platform",
                  "--event",
                  "EV-1",
                  "--text",
                  "patch",
                  "--url",
                  url,
                  "--token-file",
                  token.toString()))
          .as(err.toString())
          .isZero();
      String q =
          "state=running&eventId=EV-1&type=Reboot&source=Platform&zone=2&scaleSet=ss%201"
              + "&resourceGroup=rg-prod&text=patch&limit=100";
      assertThat(queries).containsExactly(q, q + "&cursor=p2");
      assertThat(out.toString()).contains("r-1").contains("r-2");
    } finally {
      server.stop(0);
    }
  }

  /**
   * {@code fleet approvals}: the filters as the API's query, every page followed, the newest first;
   * {@code fleet vms} passes its filters the same way.
   */
  @Test
  void fleetApprovalsFiltersFollowsEveryPageAndListsTheNewestFirst() throws Exception {
    java.util.List<String> queries = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/approvals",
            ex -> {
              String q = ex.getRequestURI().getRawQuery();
              queries.add(q);
              boolean first = !q.contains("cursor=p2");
              String at = first ? "2026-11-27T10:00:00Z" : "2026-11-27T11:00:00Z";
              return new Answer(
                  200,
                  "{\"generatedAt\":\"2026-11-27T12:00:00Z\",\"approvals\":[{\"request\":"
                      + "{\"requestId\":\"req-"
                      + (first ? "older" : "newer")
                      + "\",\"eventId\":\"EV-1\",\"vmIds\":[\"vm-1\"],\"reason\":\"patch\","
                      + "\"requestedBy\":\"alice\",\"requestedAt\":\""
                      + at
                      + "\",\"origin\":\"rollout:r-1\"},\"vms\":{},\"outcomes\":{\"accepted\":1},"
                      + "\"complete\":true}]"
                      + (first ? ",\"next\":\"p2\"" : "")
                      + "}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "reader-token-0123456789ab");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThat(
              run(
                  "fleet",
                  "approvals",
                  "--zone",
                  "2",
                  "--resource-group",
                  "rg prod",
                  "--type",
                  "Reboot",
                  "--state",
                  "complete",
                  "--url",
                  url,
                  "--token-file",
                  token.toString()))
          .as(err.toString())
          .isZero();
      assertThat(queries)
          .containsExactly(
              "state=complete&zone=2&resourceGroup=rg%20prod&type=Reboot&limit=1000",
              "state=complete&zone=2&resourceGroup=rg%20prod&type=Reboot&limit=1000&cursor=p2");
      String table = out.toString();
      assertThat(table).contains("rollout:r-1").contains("accepted 1");
      assertThat(table.indexOf("req-newer")).isLessThan(table.indexOf("req-older"));
      assertThat(
              run(
                  "fleet",
                  "approvals",
                  "req-newer",
                  "--zone",
                  "2",
                  "--url",
                  url,
                  "--token-file",
                  token.toString()))
          .as("one request, or a filtered list: not both")
          .isEqualTo(2);
      assertThat(err.toString()).contains("not with a filter");
    } finally {
      server.stop(0);
    }
  }

  /** Rollouts too: at most 100 a page (their contract's limit), every page followed. */
  @Test
  void fleetRolloutsFollowsEveryPage() throws Exception {
    java.util.List<String> queries = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/rollouts",
            ex -> {
              String q = ex.getRequestURI().getRawQuery();
              queries.add(q);
              int page = q.contains("cursor=p2") ? 2 : 1;
              return new Answer(
                  200,
                  "{\"generatedAt\":\"2026-11-27T00:00:00Z\",\"rollouts\":[{\"id\":\"patch-"
                      + page
                      + "\",\"state\":\"running\",\"requestedBy\":\"alice\",\"reason\":\"go\","
                      + "\"vms\":[],\"waves\":[]}]"
                      + (page < 2 ? ",\"next\":\"p2\"" : "")
                      + "}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "reader-token-0123456789ab");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThat(run("fleet", "rollouts", "--url", url, "--token-file", token.toString()))
          .as(err.toString())
          .isZero();
      assertThat(out.toString()).contains("patch-1").contains("patch-2");
      assertThat(queries).containsExactly("limit=100", "limit=100&cursor=p2");
      out.getBuffer().setLength(0);
      assertThat(run("fleet", "rollouts", "--json", "--url", url, "--token-file", token.toString()))
          .isZero();
      com.fasterxml.jackson.databind.JsonNode printed =
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
      assertThat(printed.isArray()).isTrue(); // an array of rollouts, as before the pages
      assertThat(printed).hasSize(2);
    } finally {
      server.stop(0);
    }
  }

  /**
   * A write whose outcome the service cannot tell (503, {@code "state": "unknown"}) is tried again
   * by the CLI with the same Idempotency-Key, so the service makes one request however many tries
   * reach it; after the last try the CLI says which request may still take effect and how to retry
   * it, whatever the last try's answer was. Against a real HTTP server on loopback.
   */
  @Test
  void fleetApproveRetriesAnUnknownWriteWithTheSameIdempotencyKey() throws Exception {
    java.util.List<String> keys = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicInteger unknownAnswers =
        new java.util.concurrent.atomic.AtomicInteger(1);
    java.util.concurrent.atomic.AtomicBoolean busy =
        new java.util.concurrent.atomic.AtomicBoolean();
    com.sun.net.httpserver.HttpServer server =
        serve(
            "/api/events/E-1/approve",
            ex -> {
              keys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
              ex.getRequestBody().readAllBytes();
              if (busy.get() && unknownAnswers.getAndDecrement() <= 0) {
                return new Answer(
                    503,
                    "{\"error\":\"too many requests at once; try again\"}",
                    java.util.Map.of("Retry-After", "1"));
              }
              return busy.get() || unknownAnswers.getAndDecrement() > 0
                  ? new Answer(
                      503,
                      "{\"error\":\"cannot write the audit record: timed out\","
                          + "\"requestId\":\"req-1\",\"state\":\"unknown\"}")
                  : new Answer(
                      202,
                      "{\"requestId\":\"req-1\",\"eventId\":\"E-1\",\"requestedBy\":\"alice\","
                          + "\"commands\":{\"vm-1\":\"fleet:req-1:vm-1\"},\"releases\":[\"vm-1\"]}");
            });
    try {
      Path token = dir.resolve("token");
      Files.writeString(token, "approver-token-0123456789");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      String[] approve = approve(url, token);
      assertThat(run(approve)).as(err.toString()).isZero();
      assertThat(out.toString()).contains("request req-1 by alice: 1 command(s) for event E-1");
      assertThat(keys).hasSize(2);
      assertThat(keys.get(1)).isEqualTo(keys.get(0)).isNotBlank();

      keys.clear();
      unknownAnswers.set(99);
      assertThat(run(approve(url, token, "--idempotency-key", "my-key-1"))).isEqualTo(1);
      assertThat(keys).containsExactly("my-key-1", "my-key-1", "my-key-1");
      assertThat(err.toString())
          .contains("503: cannot write the audit record")
          .contains("req-1 may still take effect (state unknown)")
          .contains("--idempotency-key my-key-1");

      // The last try a plain busy 503, an earlier one of unknown state: still the key to retry
      // with (a CLI that trusted the last answer said "nothing was done", and a run again without
      // the key made a second request).
      err.getBuffer().setLength(0);
      keys.clear();
      unknownAnswers.set(1);
      busy.set(true);
      assertThat(run(approve(url, token, "--idempotency-key", "my-key-3"))).isEqualTo(1);
      assertThat(keys).hasSize(3);
      assertThat(err.toString())
          .contains("503: too many requests at once")
          .contains("may still take effect (state unknown)")
          .contains("--idempotency-key my-key-3");
    } finally {
      server.stop(0);
    }
    // No answer at all (here: nothing listens any more): after the last try, the key to retry.
    err.getBuffer().setLength(0);
    String[] refused =
        approve(
            "http://127.0.0.1:" + server.getAddress().getPort(),
            dir.resolve("token"),
            "--idempotency-key",
            "my-key-2");
    assertThat(run(refused)).isEqualTo(1);
    assertThat(err.toString())
        .contains("the request may still take effect (state unknown)")
        .contains("--idempotency-key my-key-2");
  }

  /** {@code fleet approve E-1} against this service, with these options more. */
  static String[] approve(String url, Path token, String... more) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "fleet",
                "approve",
                "E-1",
                "--reason",
                "patch",
                "--wait",
                "0",
                "--url",
                url,
                "--token-file",
                token.toString()));
    args.addAll(java.util.List.of(more));
    return args.toArray(String[]::new);
  }
}
