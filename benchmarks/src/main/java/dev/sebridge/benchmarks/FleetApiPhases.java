package dev.sebridge.benchmarks;

import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The fleet benchmark's phases through the service's API ({@link FleetBenchmark}): reads under load
 * with live page streams open, then under a slow-loris attack ({@link ApiLoad}, {@link SlowLoris});
 * and one event of many VMs approved at once, until every command is on the topic.
 */
final class FleetApiPhases {
  static final int API_RATE = 200;
  static final int LIVE_STREAMS = 200;

  /** Live streams each reader opens: the server's cap for one principal. */
  static final int LIVE_STREAMS_EACH = 8;

  static final int LORIS = 80;

  private FleetApiPhases() {}

  /**
   * An approval's two times.
   *
   * @param answered from the POST to the API's answer
   * @param committed from the POST to every command readable (committed) on the commands topic
   */
  record Approved(Duration answered, Duration committed) {}

  /**
   * {@link #API_RATE} reads a second with {@link #LIVE_STREAMS} live page streams open, then the
   * same with {@link #LORIS} slow-loris connections held open beside them.
   */
  static void underLoad(FleetProcess fleet, FleetGenerator gen, int apiSeconds, FleetReport report)
      throws Exception {
    List<String> vmIds = gen.vms().stream().map(v -> v.vmId()).toList();
    try (ApiLoad load = new ApiLoad(fleet.url(), vmIds)) {
      load.learnEvents();
      int open = load.openStreams(FleetProcess.readerTokens(), LIVE_STREAMS_EACH);
      System.out.printf(
          "api: %d of %d live streams open, %d refused%n",
          open, LIVE_STREAMS, load.streamsRefused());
      load.run(Duration.ofSeconds(Math.min(20, apiSeconds)), API_RATE); // warm-up, not counted
      ApiLoad.Phase quiet = load.run(Duration.ofSeconds(apiSeconds), API_RATE);
      System.out.printf(
          "api: reads %s; healthz %s%n", quiet.reads().summary(), quiet.probes().summary());
      ApiLoad.Phase attacked;
      int opened;
      try (SlowLoris loris = SlowLoris.start(fleet.url(), LORIS, load.loginCookie())) {
        attacked = load.run(Duration.ofSeconds(apiSeconds), API_RATE);
        opened = loris.opened();
      }
      System.out.printf(
          "api with slow loris: reads %s; healthz %s%n",
          attacked.reads().summary(), attacked.probes().summary());
      report.api(
          API_RATE,
          LIVE_STREAMS,
          open,
          open - load.streamsClosed(),
          load.streamsRefused(),
          load.streamLines(),
          LORIS,
          opened,
          quiet,
          attacked);
    }
  }

  /** From the POST to every command readable (committed) on the commands topic. */
  static Approved approveAll(
      EmbeddedKafkaBroker kafka, FleetProcess fleet, String commands, String event, int expected)
      throws Exception {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers", kafka.bootstrapServers(),
                "isolation.level", "read_committed",
                "fetch.max.wait.ms", "20"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(commands)
          .forEach(p -> parts.add(new TopicPartition(commands, p.partition())));
      c.assign(parts);
      c.seekToEnd(parts);
      parts.forEach(c::position);
      long t0 = System.nanoTime();
      HttpResponse<String> r =
          fleet.post("/api/events/" + event + "/approve", "{\"reason\":\"benchmark\"}");
      if (r.statusCode() != 202) {
        throw new IllegalStateException("approve answered " + r.statusCode() + ": " + r.body());
      }
      Duration answered = Duration.ofNanos(System.nanoTime() - t0);
      int seen = 0;
      long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
      while (seen < expected && System.nanoTime() < deadline) {
        seen += c.poll(Duration.ofMillis(50)).count();
      }
      if (seen < expected) {
        throw new IllegalStateException(seen + " of " + expected + " commands within 60 s");
      }
      return new Approved(answered, Duration.ofNanos(System.nanoTime() - t0));
    }
  }
}
