package dev.sebridge.benchmarks;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.StartRequestRecord;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Approval latency: a signed command produced to Kafka -> the StartRequests POST at the simulator,
 * one command at a time (no queueing), the first one right after the agent started included. Events
 * are scheduled in batches so that a thousand approvals do not wait a thousand polls.
 */
final class ApprovalBenchmark {
  static final int BATCH = 20;

  private final Benchmarks harness;

  ApprovalBenchmark(Benchmarks harness) {
    this.harness = harness;
  }

  void run(EmbeddedKafkaBroker kafka) throws Exception {
    String commands = Benchmarks.COMMANDS;
    kafka.createCommandsTopic(commands, 3);
    String topic = "events-approval";
    kafka.createTopic(topic, 3);
    JWK key = new ECKeyGenerator(Curve.P_256).keyID("bench").generate();
    Files.writeString(
        harness.work.resolve("trusted.jwks"), new JWKSet(key.toPublicJWK()).toString());
    CommandSigner signer = new CommandSigner(key, "bench");
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(Benchmarks.VM).build().start();
        EnvelopeReader reader = new EnvelopeReader(kafka, topic);
        AgentProcessHandle agent =
            harness.startAgent(
                "agent-approval.log",
                harness.agentArgs(
                    sim,
                    kafka,
                    topic,
                    Duration.ofSeconds(1),
                    "state-approval",
                    List.of(
                        "commands.source=kafka",
                        "commands.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                        "commands.kafka.topic=" + commands,
                        "commands.trusted-keys=" + harness.work.resolve("trusted.jwks"),
                        "http.port=" + port)));
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                Map.of(
                    "bootstrap.servers", kafka.bootstrapServers(), "linger.ms", "0", "acks", "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
      // Commands are produced once the agent says it is ready (/readyz: it reads the commands
      // topic); the first approval after that is counted like every other.
      awaitReady(port);
      String vmId = Benchmarks.VM.vmId();
      int partition =
          CommandPartitioning.partitionFor(vmId, producer.partitionsFor(commands).size());
      // The producer's own first send (metadata, connection) is not the agent's latency.
      producer.send(new ProducerRecord<>("events-approval", 0, new byte[0], new byte[0])).get();
      Stats stats = new Stats();
      List<Double> inOrder = new ArrayList<>();
      int failed = 0;
      for (int first = 0; first < harness.approvals; first += BATCH) {
        harness.progress.progress("approvals", first, harness.approvals);
        List<String> ids = new ArrayList<>();
        for (int i = first; i < Math.min(harness.approvals, first + BATCH); i++) {
          ids.add(
              sim.addEvent(
                  EventSpec.scheduled("Reboot", List.of(Benchmarks.VM.name()))
                      .withId("A-" + i)
                      .withNotice(36000)
                      .withStartedFor(0.2)));
        }
        for (String id : ids) {
          if (reader.await(id + ":Scheduled", Duration.ofSeconds(30)) < 0) {
            failed++;
            continue;
          }
          byte[] command =
              signer.sign(
                  new CommandSigner.Request(
                      vmId, List.of(id), "bench", "", Instant.now(), Duration.ofMinutes(5)));
          int before = sim.startRequests().size();
          Instant sent = Instant.now();
          producer.send(
              new ProducerRecord<>(
                  commands, partition, vmId.getBytes(StandardCharsets.UTF_8), command));
          long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
          while (sim.startRequests().size() == before && System.nanoTime() < end) {
            Thread.sleep(1);
          }
          List<StartRequestRecord> posts = sim.startRequests();
          if (posts.size() == before) {
            failed++;
          } else {
            double ms = Duration.between(sent, posts.get(posts.size() - 1).at()).toNanos() / 1e6;
            stats.add(ms);
            inOrder.add(ms);
          }
        }
      }
      harness.progress.progress("approvals", harness.approvals, harness.approvals);
      harness.report.approval(stats, inOrder, failed);
    }
  }

  private static void awaitReady(int port) throws Exception {
    java.net.http.HttpClient http =
        java.net.http.HttpClient.newBuilder()
            .proxy(java.net.http.HttpClient.Builder.NO_PROXY)
            .build();
    java.net.http.HttpRequest ready =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + port + "/readyz"))
            .build();
    // Not listening yet is an IOException: ignored until ready or 60 s.
    org.awaitility.Awaitility.await("the agent's /readyz")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .ignoreExceptionsInstanceOf(java.io.IOException.class)
        .until(
            () ->
                http.send(ready, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode()
                    == 200);
  }
}
