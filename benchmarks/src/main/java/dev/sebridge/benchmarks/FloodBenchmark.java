package dev.sebridge.benchmarks;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A commands topic flooded by a writer without a key: how many rejections per second the agent
 * handles on one core (all its threads pinned to CPU 0), by kind, and how long a genuine approval
 * produced behind 250,000 garbage records waits for its POST.
 */
final class FloodBenchmark {

  private final Path work;
  private final Report report;
  private final Benchmarks harness;
  private final int flood;
  private final int perKind;

  FloodBenchmark(Benchmarks harness) {
    this.harness = harness;
    this.work = harness.work;
    this.report = harness.report;
    this.flood = harness.flood;
    this.perKind = Math.max(1, harness.flood * 2 / 5);
  }

  void run(EmbeddedKafkaBroker kafka) throws Exception {
    String commands = "flood-commands";
    kafka.createCommandsTopic(commands, 1);
    kafka.createTopic("events-flood", 1);
    JWK key = new ECKeyGenerator(Curve.P_256).keyID("flood").generate();
    JWK stranger = new ECKeyGenerator(Curve.P_256).keyID("stranger").generate();
    Files.writeString(work.resolve("flood.jwks"), new JWKSet(key.toPublicJWK()).toString());
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(Benchmarks.VM).build().start();
        AgentProcessHandle agent =
            harness.startAgent(
                "agent-flood.log",
                harness.agentArgs(
                    sim,
                    kafka,
                    "events-flood",
                    Duration.ofSeconds(1),
                    "state-flood",
                    List.of(
                        "commands.source=kafka",
                        "commands.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                        "commands.kafka.topic=" + commands,
                        "commands.trusted-keys=" + work.resolve("flood.jwks"),
                        "http.port=" + port)));
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                Map.of(
                    "bootstrap.servers", kafka.bootstrapServers(),
                    "linger.ms", "5",
                    // Under the commands topic's max.message.bytes (64 KiB): a larger batch is
                    // refused and split by the producer, which with idempotence can fail with
                    // OutOfOrderSequenceException and lose records (seen in a full run).
                    "batch.size", "32768"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
      new ProcessBuilder("taskset", "-a", "-cp", "0", Long.toString(agent.pid()))
          .redirectErrorStream(true)
          .start()
          .waitFor();
      String event =
          sim.addEvent(
              EventSpec.scheduled("Reboot", List.of(Benchmarks.VM.name())).withNotice(36000));
      Metrics metrics = new Metrics(port);
      metrics.await(m -> m.contains("sebridge_imds_polls_total"), Duration.ofSeconds(60));
      byte[] keyBytes = Benchmarks.VM.vmId().getBytes(StandardCharsets.UTF_8);
      Map<String, Supplier<byte[]>> kinds = new LinkedHashMap<>();
      kinds.put("malformed", () -> "{\"not\": \"a command\"}".getBytes(StandardCharsets.UTF_8));
      byte[] untrusted =
          new CommandSigner(stranger, "mallory")
              .sign(
                  new CommandSigner.Request(
                      Benchmarks.VM.vmId(),
                      List.of(event),
                      "mallory",
                      "",
                      Instant.now(),
                      Duration.ofMinutes(5)));
      kinds.put("untrusted-key", () -> untrusted);
      byte[] expired = sign(key, event, Instant.now().minus(Duration.ofHours(1)));
      kinds.put("expired", () -> expired);
      List<String> rates = new ArrayList<>();
      LostRecords lost = new LostRecords();
      int kindsDone = 0;
      for (var kind : kinds.entrySet()) {
        harness.progress.progress("kinds of bad record, a backlog each", kindsDone++, kinds.size());
        double before = metrics.rejected(kind.getKey());
        // Produced while the agent is stopped (SIGSTOP), so that the rate is the agent's and not
        // the producer's: the timing starts when it is let go (SIGCONT) with the backlog waiting.
        signal("STOP", agent.pid());
        long p0 = System.nanoTime();
        try {
          for (int i = 0; i < perKind; i++) {
            producer.send(
                new ProducerRecord<>(commands, keyBytes, kind.getValue().get()), lost::record);
          }
          producer.flush();
          lost.check();
        } finally {
          signal("CONT", agent.pid());
        }
        long t0 = System.nanoTime();
        double produced = (t0 - p0) / 1e9;
        metrics.await(
            m -> Metrics.rejected(m, kind.getKey()) >= before + perKind, Duration.ofMinutes(5));
        double handled = (System.nanoTime() - t0) / 1e9;
        rates.add(
            String.format(
                "- %s: %,d rejected in %.2f s = **%,.0f per second** (produced beforehand in %.2f"
                    + " s)",
                kind.getKey(), perKind, handled, perKind / handled, produced));
      }
      harness.progress.progress("kinds of bad record, a backlog each", kinds.size(), kinds.size());
      Random random = new Random(11);
      List<Supplier<byte[]>> garbage = new ArrayList<>(kinds.values());
      long t0 = System.nanoTime();
      for (int i = 0; i < flood; i++) {
        harness.progress.progress("flood records produced", i, flood);
        producer.send(
            new ProducerRecord<>(
                commands, keyBytes, garbage.get(random.nextInt(garbage.size())).get()),
            lost::record);
      }
      producer.flush();
      lost.check();
      harness.progress.progress("flood records produced", flood, flood);
      double floodSeconds = (System.nanoTime() - t0) / 1e9;
      producer
          .send(new ProducerRecord<>(commands, keyBytes, sign(key, event, Instant.now())))
          .get();
      Instant produced = Instant.now();
      long end = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (sim.startRequests().isEmpty() && System.nanoTime() < end) {
        Thread.sleep(5);
      }
      String delay =
          sim.startRequests().isEmpty()
              ? "never (5 minutes)"
              : Duration.between(produced, sim.startRequests().get(0).at()).toMillis() + " ms";
      report.flood(rates, perKind, flood, floodSeconds, delay, sim.startRequests().size());
    }
  }

  private static void signal(String signal, long pid) throws Exception {
    int rc = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor();
    if (rc != 0) {
      throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + rc);
    }
  }

  static byte[] sign(JWK key, String event, Instant iat) {
    return new CommandSigner(key, "bench")
        .sign(
            new CommandSigner.Request(
                Benchmarks.VM.vmId(), List.of(event), "bench", "", iat, Duration.ofMinutes(5)));
  }

  /** The agent's /metrics. */
  static final class Metrics {
    private final HttpClient http =
        HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
    private final URI uri;

    Metrics(int port) {
      this.uri = URI.create("http://127.0.0.1:" + port + "/metrics");
    }

    String scrape() {
      try {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
            .body();
      } catch (Exception e) {
        return "";
      }
    }

    double rejected(String reason) {
      return rejected(scrape(), reason);
    }

    static double rejected(String scrape, String reason) {
      return scrape
          .lines()
          .filter(
              l ->
                  l.startsWith("sebridge_commands_total{")
                      && l.contains("outcome=\"rejected\"")
                      && l.contains("reason=\"" + reason + "\""))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
          .sum();
    }

    void await(java.util.function.Predicate<String> condition, Duration timeout)
        throws InterruptedException {
      long end = System.nanoTime() + timeout.toNanos();
      while (!condition.test(scrape())) {
        if (System.nanoTime() > end) {
          throw new IllegalStateException("the agent's metrics did not get there in " + timeout);
        }
        Thread.sleep(20);
      }
    }
  }

  /** Send failures of the flood producer: the run stops at once, saying why, instead of waiting. */
  static final class LostRecords {
    private final AtomicReference<Exception> first = new AtomicReference<>();
    private final AtomicLong count = new AtomicLong();

    void record(RecordMetadata metadata, Exception e) {
      if (e != null) {
        first.compareAndSet(null, e);
        count.incrementAndGet();
      }
    }

    void check() {
      if (first.get() != null) {
        throw new IllegalStateException(
            "the flood producer lost " + count.get() + " records", first.get());
      }
    }
  }
}
