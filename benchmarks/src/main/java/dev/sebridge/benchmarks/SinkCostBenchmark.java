package dev.sebridge.benchmarks;

import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestPeer;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import dev.sebridge.sink.loganalytics.testing.LogsIngestionEndpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the Azure sinks cost on top of the Kafka sink: three agents side by side for the same time,
 * each with its own simulator, at 1 poll/s: Kafka alone, Kafka and Event Hubs (the real
 * azure-messaging-eventhubs client over AMQP, to the test peer), Kafka and Log Analytics (the real
 * azure-monitor-ingestion client over HTTPS to the test endpoint, with a managed-identity token
 * from the simulator's IMDS).
 */
final class SinkCostBenchmark {
  static final String RULE = "dcr-00112233445566778899aabbccddeeff";
  static final String STREAM = "Custom-VmScheduledEvents_CL";
  static final String UAMI = "7d1f3c2a-1111-4222-8333-944445555666";

  private final Benchmarks harness;

  SinkCostBenchmark(Benchmarks harness) {
    this.harness = harness;
  }

  /** One agent's settings beyond the Kafka sink's, its JVM options and environment. */
  private record Variant(
      String name, List<String> settings, List<String> jvm, Map<String, String> env) {}

  void run(EmbeddedKafkaBroker kafka) throws Exception {
    int seconds = Math.max(Math.min(30, harness.footprintSeconds), harness.footprintSeconds / 2);
    List<ImdsSimulator> sims = new ArrayList<>();
    List<AgentProcessHandle> agents = new ArrayList<>();
    try (EventHubsTestPeer hub = new EventHubsTestPeer().hub("events", 4).start();
        LogsIngestionEndpoint logs = LogsIngestionEndpoint.start(RULE, STREAM)) {
      for (int i = 0; i < 3; i++) {
        sims.add(ImdsSimulator.builder().vm(Benchmarks.VM).build().start());
      }
      List<Variant> variants =
          List.of(
              new Variant("Kafka", List.of(), List.of(), Map.of()),
              new Variant(
                  "Kafka + Event Hubs",
                  List.of("sinks=kafka,eventhubs"),
                  List.of(),
                  Map.of(
                      "SEBRIDGE_SINK_EVENTHUBS_CONNECTION_STRING", hub.connectionString("events"))),
              new Variant(
                  "Kafka + Log Analytics",
                  List.of(
                      "sinks=kafka,loganalytics",
                      "sink.loganalytics.endpoint=" + logs.endpoint(),
                      "sink.loganalytics.rule-id=" + RULE,
                      "sink.loganalytics.client-id=" + UAMI),
                  List.of(
                      "-Djavax.net.ssl.trustStore=" + logs.trustStore(),
                      "-Djavax.net.ssl.trustStorePassword="
                          + LogsIngestionEndpoint.TRUST_STORE_PASSWORD,
                      "-Djavax.net.ssl.trustStoreType=PKCS12"),
                  // Where azure-identity (MSAL) asks for the managed identity's token.
                  Map.of(
                      "AZURE_POD_IDENTITY_AUTHORITY_HOST",
                      "http://127.0.0.1:" + sims.get(2).port())));
      for (int i = 0; i < variants.size(); i++) {
        harness.progress.progress("agents started (a sink each)", i, variants.size());
        Variant v = variants.get(i);
        String topic = "events-sinks-" + i;
        kafka.createTopic(topic, 3);
        agents.add(
            harness.startAgent(
                "agent-sinks-" + i + ".log",
                v.jvm(),
                v.env(),
                harness.agentArgs(
                    sims.get(i),
                    kafka,
                    topic,
                    Duration.ofSeconds(1),
                    "state-sinks-" + i,
                    v.settings())));
      }
      harness.progress.progress("agents started (a sink each)", variants.size(), variants.size());
      harness.settle(sims);
      Map<String, long[]> max = new LinkedHashMap<>();
      variants.forEach(v -> max.put(v.name(), new long[2]));
      for (int s = 0; s < seconds; s++) {
        harness.progress.progress("window, seconds", s, seconds);
        Thread.sleep(1000);
        for (int i = 0; i < agents.size(); i++) {
          long[] m = max.get(variants.get(i).name());
          m[0] = Math.max(m[0], agents.get(i).rssKib());
          m[1] = Math.max(m[1], ProcStat.pssKib(agents.get(i).pid()));
        }
      }
      harness.progress.progress("window, seconds", seconds, seconds);
      new FootprintReport(harness.report)
          .sinkCost(
              seconds,
              max,
              logs.rows().size(),
              agents.stream().allMatch(AgentProcessHandle::isAlive));
    } finally {
      for (AgentProcessHandle a : agents) {
        a.close();
      }
      sims.forEach(ImdsSimulator::close);
    }
  }
}
