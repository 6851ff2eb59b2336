package dev.sebridge.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import dev.sebridge.agent.Agent;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.config.Configuration;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.Scenario;
import dev.sebridge.simulator.StartRequestRecord;
import dev.sebridge.sink.kafka.KafkaCommandPublisher;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge demo}: the whole job on this machine, no Azure, no Docker. An IMDS simulator
 * plays a scenario (a short Freeze, a user-initiated Reboot, a maintenance Azure cancels, a
 * hardware-failure Reboot); the agent publishes to an embedded real Kafka broker and reads signed
 * commands from it; a consumer prints the stream as a timeline. When the user Reboot shows up, the
 * demo signs an approval with a fresh key and sends it over Kafka; the agent verifies it, posts
 * StartRequests, and the result envelope and the Started and Completed transitions follow.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Runs the simulator, a Kafka broker, the agent and a consumer on this machine (no Azure) and prints the timeline.")
final class DemoCommand implements Callable<Integer> {
  static final String EVENTS = "scheduled-events";
  static final String COMMANDS = "sebridge-commands";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(
      names = "--fleet",
      description =
          "The fleet service instead: 24 VMs, their agents and the fleet API; the fleet CLI"
              + " shows open maintenance and approves a Reboot for 4 VMs.")
  boolean fleet;

  @Option(names = "--json", description = "Print raw envelopes instead of the timeline.")
  boolean json;

  @Option(names = "--follow", description = "Keep running after the scenario, until Ctrl-C.")
  boolean follow;

  @Option(names = "--verbose", description = "Show the agent's log (standard error).")
  boolean verbose;

  @Option(
      names = "--time-scale",
      description = "Simulated seconds per real second (default: ${DEFAULT-VALUE}).")
  double timeScale = 60;

  @Option(
      names = "--timeout",
      description = "Give up after this many seconds (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds = 180;

  @Spec CommandSpec spec;

  private Signals.Termination termination;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (!verbose) {
      DemoLogging.quiet();
    }
    if (fleet) {
      Path work = Files.createTempDirectory("sebridge-fleet-demo-");
      try {
        return new dev.sebridge.app.fleet.FleetDemo(
                out, spec.commandLine().getErr(), Duration.ofSeconds(timeoutSeconds))
            .run(work, follow);
      } finally {
        deleteQuietly(work);
      }
    }
    Scenario scenario = Scenario.builtIn("demo");
    Path work = Files.createTempDirectory("sebridge-demo-");
    long start = System.nanoTime();
    TimelinePrinter timeline = new TimelinePrinter(out, json);
    try (EmbeddedKafkaBroker kafka = new EmbeddedKafkaBroker(work.resolve("kafka")).start();
        ImdsSimulator sim =
            ImdsSimulator.builder().vms(scenario.vms()).timeScale(timeScale).build().start()) {
      kafka.createTopic(EVENTS, 3);
      kafka.createCommandsTopic(COMMANDS, 3);
      JWK key = KeygenCommand.generate("ES256", "demo-approvals");
      Files.writeString(work.resolve("trusted.jwks"), new JWKSet(key.toPublicJWK()).toString());
      String vm = scenario.vms().get(0).name();
      String vmId = scenario.vms().get(0).vmId();
      Configuration config =
          Configuration.of(
              Map.ofEntries(
                  Map.entry("imds.endpoint", sim.baseUri(vm).toString()),
                  Map.entry("imds.poll-interval", "250ms"),
                  Map.entry("state.dir", work.resolve("state").toString()),
                  Map.entry("sinks", "kafka"),
                  Map.entry("sink.kafka.bootstrap-servers", kafka.bootstrapServers()),
                  Map.entry("sink.kafka.topic", EVENTS),
                  Map.entry("commands.source", "kafka"),
                  Map.entry("commands.kafka.bootstrap-servers", kafka.bootstrapServers()),
                  Map.entry("commands.kafka.topic", COMMANDS),
                  Map.entry("commands.trusted-keys", work.resolve("trusted.jwks").toString()),
                  Map.entry("heartbeat.interval", "1h"),
                  Map.entry("http.port", "0")));
      if (!json) {
        out.println(
            "sebridge demo: IMDS simulator on "
                + sim.baseUri(vm)
                + " (time scale "
                + timeScale
                + "),");
        out.println(
            "  Kafka broker (embedded KRaft) on "
                + kafka.bootstrapServers()
                + ", topics "
                + EVENTS
                + " and "
                + COMMANDS
                + ",");
        out.println(
            "  agent for "
                + vm
                + " (vmId "
                + vmId
                + "), approvals signed with a fresh ES256 key 'demo-approvals'.");
        out.println();
        timeline.header();
      }
      List<JsonNode> seen = new ArrayList<>();
      AtomicLong commandSentNanos = new AtomicLong();
      AtomicLong resultSeenNanos = new AtomicLong();
      AtomicBoolean approvalSent = new AtomicBoolean();
      AtomicBoolean stopConsumer = new AtomicBoolean();
      Thread consumer =
          new Thread(
              () ->
                  consume(
                      kafka,
                      timeline,
                      seen,
                      stopConsumer,
                      env -> {
                        JsonNode d = env.path("data");
                        boolean pendingUserReboot =
                            env.path("type")
                                    .asText()
                                    .equals("dev.sebridge.scheduledevent.scheduled.v1")
                                && d.path("event").path("EventSource").asText().equals("User");
                        if (pendingUserReboot && approvalSent.compareAndSet(false, true)) {
                          String eventId = d.path("event").path("EventId").asText();
                          byte[] command =
                              new CommandSigner(key, "sebridge-demo")
                                  .sign(
                                      new CommandSigner.Request(
                                          vmId,
                                          List.of(eventId),
                                          "sre-oncall@demo",
                                          "demo: approve the user reboot now",
                                          Instant.now(),
                                          Duration.ofMinutes(5)));
                          commandSentNanos.set(System.nanoTime());
                          try {
                            KafkaCommandPublisher.publish(
                                kafka.bootstrapServers(), COMMANDS, vmId, command, Map.of());
                            timeline.note(
                                "--> signed approval "
                                    + CommandSigner.commandId(command)
                                    + " sent for "
                                    + eventId);
                          } catch (Exception e) {
                            timeline.note("--> could not send the approval: " + e);
                          }
                        }
                        if (env.path("type").asText().equals("dev.sebridge.approval.result.v1")) {
                          resultSeenNanos.compareAndSet(0, System.nanoTime());
                        }
                      }),
              "demo-consumer");
      consumer.setDaemon(true);
      consumer.start();
      try (Agent agent = Agent.builder(config).build().start()) {
        Thread player = new Thread(() -> scenario.play(sim), "demo-scenario");
        player.setDaemon(true);
        player.start();
        if (follow) {
          termination = Signals.install(Duration.ofSeconds(15));
          termination.await();
        } else {
          long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
          while (player.isAlive()
              || !sim.isIdle()
              || agent.committedIncarnation() != sim.documentIncarnation()
              || agent.outbox().map(o -> o.pending("kafka") > 0).orElse(false)
              || size(seen) < agent.outbox().map(o -> o.delivered("kafka")).orElse(0L)
              || resultSeenNanos.get() == 0) {
            if (System.nanoTime() > deadline) {
              spec.commandLine()
                  .getErr()
                  .println(
                      "demo: timed out after "
                          + timeoutSeconds
                          + "s with "
                          + size(seen)
                          + " envelopes");
              return 1;
            }
            Thread.sleep(100);
          }
        }
      } finally {
        stopConsumer.set(true);
        consumer.join(3000);
      }
      // with --json, standard output holds envelopes only (one JSON document a line, for jq)
      summary(
          json ? spec.commandLine().getErr() : out,
          seen,
          sim.startRequests(),
          commandSentNanos.get(),
          resultSeenNanos.get(),
          Duration.ofNanos(System.nanoTime() - start));
      return 0;
    } finally {
      deleteQuietly(work);
      if (termination != null) {
        termination.stopped();
      }
    }
  }

  private static int size(List<JsonNode> seen) {
    synchronized (seen) {
      return seen.size();
    }
  }

  private static void consume(
      EmbeddedKafkaBroker kafka,
      TimelinePrinter timeline,
      List<JsonNode> seen,
      AtomicBoolean stop,
      java.util.function.Consumer<JsonNode> react) {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers(), "fetch.max.wait.ms", "50"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          List.of(0, 1, 2).stream().map(p -> new TopicPartition(EVENTS, p)).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      while (!stop.get()) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
          try {
            JsonNode env = JSON.readTree(r.value());
            synchronized (seen) {
              seen.add(env);
            }
            timeline.envelope(env, new String(r.value(), StandardCharsets.UTF_8));
            react.accept(env);
          } catch (IOException e) {
            timeline.note("unreadable record at offset " + r.offset());
          }
        }
      }
    }
  }

  private static void summary(
      PrintWriter out,
      List<JsonNode> seen,
      List<StartRequestRecord> posts,
      long sent,
      long result,
      Duration took) {
    Map<String, Integer> byType = new TreeMap<>();
    synchronized (seen) {
      seen.forEach(e -> byType.merge(e.path("type").asText(), 1, Integer::sum));
    }
    out.println();
    out.printf(
        "demo done in %.1fs: %d envelopes read back from Kafka%n",
        took.toMillis() / 1000.0, size(seen));
    byType.forEach((t, n) -> out.printf("  %3d  %s%n", n, t));
    if (sent > 0 && result > 0) {
      out.printf(
          "approval round trip: command sent -> result envelope read back: %d ms; StartRequests received by IMDS: %d%n",
          (result - sent) / 1_000_000, posts.size());
    }
    out.flush();
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temp dir left behind is harmless
    }
  }
}
