package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.TopologyObserver;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.fleet.testing.ServiceConfig;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import dev.sebridge.track.TransitionType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances of the service behind one load balancer, on a real broker: a page's live stream is
 * on A, and its request for the section A told it of goes to B, whose views are behind (its global
 * thread held before it applies the event's view). The truth is what B's views hold: asked without
 * the page's mark, B shows no open maintenance. With the mark, B does not answer with those older
 * views (503, and the page asks again) until it has applied them; then it shows the event. Before,
 * B answered 200 with its older views, and the page kept them until the next change.
 */
class LaggingInstancePageTest {
  static final String TOKEN = "lagging-test-reader-token";
  static EmbeddedKafkaBroker kafka;
  static FleetService a;
  static FleetService b;
  static final AtomicBoolean hold = new AtomicBoolean();
  static final CountDownLatch release = new CountDownLatch(1);
  static final CountDownLatch held = new CountDownLatch(1);
  static final HttpClient http = HttpClient.newHttpClient();
  static Map<String, String> config;
  static Path work;

  @BeforeAll
  static void start(@TempDir Path dir) throws Exception {
    work = dir;
    kafka = new EmbeddedKafkaBroker().start();
    kafka.createTopic("envelopes", 2);
    kafka.createTopic("commands", 2);
    Map<String, String> c =
        ServiceConfig.of(
            work,
            kafka.bootstrapServers(),
            2,
            List.of(ServiceConfig.token(TOKEN, "sre", "reader")));
    config = Map.copyOf(c);
    Map<String, String> second = new HashMap<>(c);
    second.put("fleet.state-dir", work.resolve("state-b").toString());
    a = FleetService.builder(Configuration.of(c)).build().start();
    // B's global thread stops, once armed, at the first event's view it is about to apply.
    TopologyObserver stall =
        new TopologyObserver() {
          @Override
          public void viewRecordStarted(String store, int partition, long offset) {
            if (store.equals(FleetTopology.EVENTS_VIEW) && hold.get()) {
              held.countDown();
              try {
                release.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
        };
    b = FleetService.builder(Configuration.of(second)).observer(stall).build().start();
    assertThat(a.awaitRunning(Duration.ofSeconds(60))).isTrue();
    assertThat(b.awaitRunning(Duration.ofSeconds(60))).isTrue();
  }

  @AfterAll
  static void stop() {
    release.countDown();
    Stream.of(b, a).filter(java.util.Objects::nonNull).forEach(FleetService::close);
    kafka.close();
  }

  @Test
  void aSectionAskedOfAnInstanceBehindTheChangeThePageWasToldOfIsNotAnsweredWithOlderViews()
      throws Exception {
    BlockingQueue<String> told = new LinkedBlockingQueue<>();
    HttpResponse<Stream<String>> stream =
        http.send(page(a, "/ui/stream").build(), HttpResponse.BodyHandlers.ofLines());
    assertThat(stream.statusCode()).isEqualTo(200);
    Thread reader =
        new Thread(
            () -> {
              String[] event = {null};
              try {
                stream
                    .body()
                    .forEach(
                        line -> {
                          if (line.startsWith("event: ")) {
                            event[0] = line.substring(7);
                          } else if (line.startsWith("data: ") && "events".equals(event[0])) {
                            told.add(line.substring(6));
                          }
                        });
              } catch (java.io.UncheckedIOException closedByTheTest) {
                // The test closes the stream when it is done with it: the read ends here. (Until
                // 2026-11-29 it ended the thread with a stack trace, which the test run printed
                // under whichever test was running then, and once counted as that test's error.)
              }
            });
    reader.setDaemon(true);
    reader.start();

    hold.set(true);
    VmIdentity vm = AgentEnvelopes.vm("vm-lag-1", "web-lag-1", "1", null);
    AgentEnvelopes agents = new AgentEnvelopes(Clock.systemUTC());
    try (KafkaProducer<String, byte[]> out =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            new StringSerializer(),
            new ByteArraySerializer())) {
      out.send(
              new ProducerRecord<>(
                  "envelopes",
                  vm.vmId(),
                  agents.transition(
                      TransitionType.SCHEDULED,
                      vm,
                      AgentEnvelopes.imdsEvent(
                          "EV-LAG-1",
                          "Reboot",
                          "Scheduled",
                          List.of(vm.name()),
                          Instant.now().plus(Duration.ofMinutes(15))),
                      false)))
          .get();
    }
    // A tells the page; B has not applied the event's view.
    String mark = told.poll(60, TimeUnit.SECONDS);
    assertThat(mark).as("A told the page of the events").isNotNull();
    assertThat(mark).contains(FleetTopology.EVENTS_VIEW + "@");
    assertThat(held.await(60, TimeUnit.SECONDS)).as("B stalled on the event").isTrue();
    assertThat(fragment(a, mark).body()).contains("EV-LAG-1");
    assertThat(fragment(b, null).body())
        .as("what B's views show")
        .doesNotContain("EV-LAG-1")
        .contains("No open maintenance");

    HttpResponse<String> behind = fragment(b, mark);
    assertThat(behind.statusCode()).isEqualTo(503);
    assertThat(behind.headers().firstValue("X-Sebridge-Behind")).hasValue("true");
    assertThat(behind.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(behind.body()).doesNotContain("EV-LAG-1");

    // Once B has applied it, B answers with it: its first answer that is not "behind" shows it.
    release.countDown();
    HttpResponse<String> caughtUp =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> fragment(b, mark), r -> r.statusCode() != 503);
    assertThat(caughtUp.statusCode()).isEqualTo(200);
    assertThat(caughtUp.body()).contains("EV-LAG-1");
    stream.body().close();

    // An instance started now reads the views whole (Streams reprocesses a global store through
    // its updater, positions included): the first thing its stream tells a page is every section,
    // the events with a mark at least A's, and it answers A's mark at once.
    Map<String, String> third = new HashMap<>(config);
    third.put("fleet.state-dir", work.resolve("state-c").toString());
    try (FleetService c = FleetService.builder(Configuration.of(third)).build().start()) {
      assertThat(c.awaitRunning(Duration.ofSeconds(60))).isTrue();
      HttpResponse<String> answered = fragment(c, mark);
      assertThat(answered.statusCode()).isEqualTo(200);
      assertThat(answered.body()).contains("EV-LAG-1");
      HttpResponse<Stream<String>> cs =
          http.send(page(c, "/ui/stream").build(), HttpResponse.BodyHandlers.ofLines());
      String[] event = {null};
      String restored =
          cs.body()
              .filter(
                  line -> {
                    if (line.startsWith("event: ")) {
                      event[0] = line.substring(7);
                    }
                    return line.startsWith("data: ") && "events".equals(event[0]);
                  })
              .findFirst()
              .orElseThrow()
              .substring(6);
      cs.body().close();
      Map<Integer, Long> seenByA = ViewMark.parse(mark).offsets().get(FleetTopology.EVENTS_VIEW);
      Map<Integer, Long> restoredByC =
          ViewMark.parse(restored).offsets().get(FleetTopology.EVENTS_VIEW);
      assertThat(restoredByC).as(restored).isNotNull();
      seenByA.forEach(
          (partition, offset) ->
              assertThat(restoredByC.get(partition)).as(restored).isGreaterThanOrEqualTo(offset));
    }
  }

  private static HttpResponse<String> fragment(FleetService on, String mark) throws Exception {
    HttpRequest.Builder r = page(on, "/ui/fragment/events");
    if (mark != null) {
      r.header("X-Sebridge-Views", mark);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest.Builder page(FleetService on, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + on.port() + path))
        .header("Cookie", "sebridge_fleet=" + TOKEN)
        .timeout(Duration.ofSeconds(30));
  }
}
