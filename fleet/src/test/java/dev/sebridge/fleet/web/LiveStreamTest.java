package dev.sebridge.fleet.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.ViewChanges;
import dev.sebridge.fleet.api.FleetServer;
import dev.sebridge.fleet.api.HttpLimits;
import dev.sebridge.fleet.api.RateLimits;
import dev.sebridge.fleet.auth.StaticTokens;
import dev.sebridge.fleet.streams.FleetTopology;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The page's live stream over a real socket: changes are coalesced to one write per tick naming
 * only the sections that changed, and open streams hold no request thread.
 */
class LiveStreamTest {
  final ViewChanges changes = new ViewChanges();
  final dev.sebridge.testing.MutableClock clock =
      new dev.sebridge.testing.MutableClock(java.time.Instant.parse("2026-11-28T10:00:00Z"));
  LiveStream live;
  FleetServer server;
  final List<Socket> sockets = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    live = new LiveStream(changes, 10, null, clock); // ticked by the test
    server =
        new FleetServer(
                "127.0.0.1",
                0,
                HttpLimits.defaults().withThreads(1, 16),
                StaticTokens.of(Map.of()),
                new RateLimits(1),
                List::of)
            .route(
                (call, path, p) -> {
                  if (!path.equals("/ui/stream")) {
                    return false;
                  }
                  String until = call.header("X-Until");
                  live.serve(
                      call,
                      call.header("X-Principal"),
                      until == null ? null : java.time.Instant.parse(until));
                  return true;
                })
            .start();
  }

  @AfterEach
  void stop() throws Exception {
    live.close();
    for (Socket s : sockets) {
      s.close();
    }
    server.close();
  }

  @Test
  void manyChangesAreOneWriteATickNamingOnlyTheSectionsThatChanged() throws Exception {
    BufferedReader a = stream();
    assertThat(status(a)).isEqualTo(200);
    BufferedReader b = stream();
    assertThat(status(b)).isEqualTo(200);
    // One request thread, two pages open: neither holds it.
    assertThat(status(stream())).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.open() == 3);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.writes() == 3);
    for (int i = 0; i < 500; i++) {
      changes.viewChanged(FleetTopology.EVENTS_VIEW);
    }
    changes.viewChanged(FleetTopology.ROLLOUTS_VIEW);
    settled();
    live.tick();
    // one write to each of the three pages, naming the two sections
    assertThat(live.writes()).isEqualTo(6);
    for (BufferedReader r : List.of(a, b)) {
      List<String> events = events(r, 2);
      assertThat(events).containsExactlyInAnyOrder("events", "rollouts");
    }
    settled();
    live.tick(); // nothing changed: nothing written
    assertThat(live.writes()).isEqualTo(6);
    changes.viewChanged(FleetTopology.REQUESTS_VIEW);
    settled();
    live.tick();
    assertThat(events(a, 1)).containsExactly("approvals");
  }

  /**
   * Each section told carries the mark of the views it reads, as far as this instance had applied
   * them when it counted the change: the page sends it back with its request for the section, and
   * whichever instance answers shows at least that change.
   */
  @Test
  void eachSectionToldCarriesTheMarkOfTheViewsItReads() throws Exception {
    BufferedReader a = stream();
    assertThat(status(a)).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.writes() == 1);
    changes.viewRecordStarted(FleetTopology.EVENTS_VIEW, 1, 812);
    changes.viewChanged(FleetTopology.EVENTS_VIEW);
    changes.viewRecordStarted(FleetTopology.POLICIES_VIEW, 0, 14);
    changes.viewRecordStarted(FleetTopology.VMS_VIEW, 0, 5); // read by the silent agents
    changes.viewChanged(ViewChanges.SILENT_AGENTS);
    settled();
    live.tick();
    assertThat(told(a, 2))
        .containsExactlyInAnyOrder(
            "events=events-view@1:812;policies-view@0:14", "silent=vms-view@0:5");
    // A rollout's parts are a topic of their own, applied apart from its header: a change of them
    // alone is a change of the rollouts section, and its mark covers both.
    changes.viewRecordStarted(FleetTopology.ROLLOUTS_VIEW, 0, 3);
    changes.viewRecordStarted(FleetTopology.ROLLOUT_PARTS_VIEW, 0, 9);
    changes.viewChanged(FleetTopology.ROLLOUT_PARTS_VIEW);
    settled();
    live.tick();
    assertThat(told(a, 1)).containsExactly("rollouts=rollout-parts-view@0:9;rollouts-view@0:3");
  }

  /**
   * A page's stream names, at its first tick, every section this instance has views of: the page's
   * first requests carried no mark and may have been answered by an instance that was behind, and a
   * stream opened again on another instance (its own gone) would miss what changed meanwhile.
   */
  @Test
  void aNewStreamIsToldOfEverySectionThisInstanceHasViewsOf() throws Exception {
    changes.viewRecordStarted(FleetTopology.EVENTS_VIEW, 0, 4);
    changes.viewChanged(FleetTopology.EVENTS_VIEW);
    changes.viewRecordStarted(FleetTopology.REQUESTS_VIEW, 1, 2);
    changes.viewChanged(FleetTopology.REQUESTS_VIEW);
    BufferedReader a = stream();
    assertThat(status(a)).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.writes() == 1);
    settled();
    live.tick();
    assertThat(told(a, 2))
        .containsExactlyInAnyOrder("events=events-view@0:4", "approvals=requests-view@1:2");
    long writes = live.writes();
    settled();
    live.tick();
    assertThat(live.writes()).as("told once").isEqualTo(writes);
  }

  /**
   * The silent agents and the coverage are told at most every other tick of a page; a change in
   * between is told at the next tick it may be, not dropped. Before, the page throttled them itself
   * (htmx's {@code throttle:2s}), which drops what is told within the two seconds: a second agent
   * falling silent a second after the first stayed off the page until the next change.
   */
  @Test
  void theSilentAgentsAreToldEveryOtherTickAtMostAndAChangeMeanwhileIsToldAtTheNext()
      throws Exception {
    BufferedReader a = stream();
    assertThat(status(a)).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.writes() == 1);
    changes.viewChanged(ViewChanges.SILENT_AGENTS);
    settled();
    live.tick();
    assertThat(events(a, 1)).containsExactly("silent");
    changes.viewChanged(ViewChanges.SILENT_AGENTS);
    changes.viewChanged(FleetTopology.EVENTS_VIEW);
    long before = live.writes();
    settled();
    live.tick();
    assertThat(events(a, 1))
        .as("the events now, the silent agents next tick")
        .containsExactly("events");
    settled();
    live.tick();
    assertThat(live.writes())
        .as("a write each tick: the silent agents came alone")
        .isEqualTo(before + 2);
    assertThat(events(a, 1)).containsExactly("silent");
    long writes = live.writes();
    settled();
    live.tick();
    settled();
    live.tick();
    assertThat(live.writes()).as("nothing changed since").isEqualTo(writes);
  }

  /**
   * The pages are told in slots: each slot's tick writes to its own pages only (the slots taken
   * round robin as pages open), so that the pages ask for the sections again a tenth at a time, not
   * all in one instant; over the slots of one tick every page hears of the change once.
   */
  @Test
  void eachSlotOfATickTellsItsOwnPages() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(status(stream("p" + i))).isEqualTo(200);
    }
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.open() == 3);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.writes() == 3);
    changes.viewChanged(FleetTopology.EVENTS_VIEW);
    settled();
    live.tick(0);
    assertThat(live.writes()).as("the first page only").isEqualTo(4);
    settled();
    live.tick(0);
    assertThat(live.writes()).as("it heard already").isEqualTo(4);
    for (int slot = 1; slot < LiveStream.SLOTS; slot++) {
      settled();
      live.tick(slot);
    }
    assertThat(live.writes()).as("the two others, in their slots").isEqualTo(6);
  }

  @Test
  void moreStreamsThanAllowedAre503AndAClosedPageFreesItsPlace() throws Exception {
    List<Socket> open = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      assertThat(status(stream())).isEqualTo(200);
      open.add(sockets.get(sockets.size() - 1));
    }
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.open() == 10);
    assertThat(status(stream())).isEqualTo(503);
    open.get(0).close();
    // A write to the closed page fails (the first may still reach the kernel's buffer) and
    // frees its place.
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              changes.viewChanged(FleetTopology.VMS_VIEW);
              live.tick();
              return live.open() == 9;
            });
    assertThat(status(stream())).isEqualTo(200);
  }

  @Test
  void onePrincipalHasAtMostEightLivePages() throws Exception {
    for (int i = 0; i < LiveStream.PER_PRINCIPAL; i++) {
      assertThat(status(stream("dashboard"))).isEqualTo(200);
    }
    assertThat(status(stream("dashboard"))).isEqualTo(503);
    assertThat(status(stream("alice"))).as("room for others").isEqualTo(200);
    // the answer's status reaches the client as the page is being registered
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> live.open() == LiveStream.PER_PRINCIPAL + 1);
  }

  /**
   * A page's stream ends when the token it was opened with expires: it kept telling a signed-out
   * browser (an Entra token expires in about an hour) when the fleet changed, for as long as the
   * tab stayed open. A stream whose token does not expire (a static token) stays.
   */
  @Test
  void aStreamEndsWhenItsTokenExpires() throws Exception {
    BufferedReader expiring =
        stream("alice", clock.instant().plus(Duration.ofMinutes(60)).toString());
    assertThat(status(expiring)).isEqualTo(200);
    BufferedReader lasting = stream("dashboard");
    assertThat(status(lasting)).isEqualTo(200);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.open() == 2);
    settled();
    clock.advance(Duration.ofMinutes(59));
    live.tick();
    assertThat(live.open()).isEqualTo(2);
    clock.advance(Duration.ofMinutes(1));
    live.tick();
    assertThat(live.open()).isEqualTo(1);
    // the stream ended (chunked encoding's last chunk), not cut
    String line;
    while ((line = expiring.readLine()) != null && !line.equals("0")) {
      // the stream's first chunk, up to the last (a read timeout fails the test)
    }
    assertThat(line).as("the last chunk").isEqualTo("0");
    changes.viewChanged(FleetTopology.REQUESTS_VIEW);
    live.tick();
    assertThat(events(lasting, 1)).containsExactly("approvals");
  }

  private BufferedReader stream() throws Exception {
    return stream("p-" + sockets.size());
  }

  /** Until every page took its last write (a tick skips a page whose write is pending). */
  private void settled() {
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> live.pending() == 0);
  }

  private BufferedReader stream(String principal) throws Exception {
    return stream(principal, null);
  }

  private BufferedReader stream(String principal, String until) throws Exception {
    Socket s = new Socket("127.0.0.1", server.port());
    sockets.add(s);
    s.setSoTimeout(10_000);
    s.getOutputStream()
        .write(
            ("GET /ui/stream HTTP/1.1\r\nHost: x\r\nX-Principal: "
                    + principal
                    + (until == null ? "" : "\r\nX-Until: " + until)
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
  }

  private static int status(BufferedReader r) throws Exception {
    return Integer.parseInt(r.readLine().substring(9, 12));
  }

  /** The next {@code n} events of the stream as name=data (headers and comments skipped). */
  private static List<String> told(BufferedReader r, int n) throws Exception {
    List<String> told = new ArrayList<>();
    String name = null;
    String line;
    while (told.size() < n && (line = r.readLine()) != null) {
      if (line.startsWith("event: ")) {
        name = line.substring(7);
      } else if (line.startsWith("data: ")) {
        told.add(name + "=" + line.substring(6));
      }
    }
    return told;
  }

  /** The names of the next {@code n} events of the stream (headers and comments skipped). */
  private static List<String> events(BufferedReader r, int n) throws Exception {
    List<String> names = new ArrayList<>();
    String line;
    while (names.size() < n && (line = r.readLine()) != null) {
      if (line.startsWith("event: ")) {
        names.add(line.substring(7));
      }
    }
    return names;
  }
}
