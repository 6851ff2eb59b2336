package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.ViewChanges;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.auth.StaticTokens;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.fleet.web.FleetPage;
import dev.sebridge.fleet.web.LiveStream;
import dev.sebridge.testing.MutableClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The page's sign-in and actions at the door, with real sockets: the sign-in form's own CSRF token,
 * failed sign-ins limited per address before their body is read, the session cookie's Secure flag
 * from configuration only, and a reader's action refused before its body is read.
 */
class FleetPageGateTest {
  static final String APPROVER = "approver-token-0123456789";
  static final String READER = "reader-token-0123456789ab";

  final MockProducer<String, RolloutCommand> commands =
      new MockProducer<>(
          true, null, new StringSerializer(), new JsonSerde<>(RolloutCommand.class).serializer());
  final List<Socket> sockets = new ArrayList<>();
  LiveStream live;
  FleetServer server;

  void start(boolean secureCookie) throws IOException {
    start(
        new HttpLimits(
            Duration.ofSeconds(5), 4, 16, 100, 3, 3, secureCookie, java.util.Set.of("127.0.0.1")));
  }

  /** What the page's live stream and sections know of the views' topics. */
  final ViewChanges changes = new ViewChanges();

  /** The VMs the page's views hold (empty unless a test puts some). */
  final MapStore<VmView> vms = new MapStore<>();

  /** The tallies the views keep their keys and silent agents in; null: read from the stores. */
  dev.sebridge.fleet.ViewTallies keys;

  /** The events the page's views hold (empty unless a test puts some). */
  final MapStore<EventView> events = new MapStore<>();

  /** The approval requests the page's views hold (empty unless a test puts some). */
  final MapStore<RequestView> requests = new MapStore<>();

  /** The newest requests as the views keep them; null: read from the store. */
  RecentRequests recent;

  CampaignIndex campaigns;

  /** The rollouts the page's views hold (empty unless a test puts some). */
  final MapStore<Rollout> rollouts = new MapStore<>();

  void start(HttpLimits limits) throws IOException {
    MutableClock clock = new MutableClock(Instant.parse("2026-11-23T10:00:00Z"));
    FleetViews views =
        new FleetViews(
            () -> vms, () -> events, () -> requests, () -> rollouts, MapStore<PolicyDecision>::new);
    if (keys != null) {
      views.withKeys(keys);
    }
    if (recent != null) {
      views.withRecentRequests(recent);
    }
    if (campaigns != null) {
      views.withCampaigns(campaigns);
    }
    StaticTokens tokens =
        StaticTokens.of(
            Map.of(
                APPROVER, new Principal("alice", Principal.Role.APPROVER),
                READER, new Principal("dashboard", Principal.Role.READER)));
    RateLimits writes = new RateLimits(limits.writesPerMinute());
    live = new LiveStream(changes, 4);
    FleetServer http = new FleetServer("127.0.0.1", 0, limits, tokens, writes, List::of);
    server =
        http.route(
                new FleetPage(
                    http.signIns(),
                    views,
                    new ApprovalRequests(commands, "rollouts", views, clock),
                    new RolloutRequests(commands, "rollouts", views, clock),
                    live,
                    limits,
                    writes,
                    keys != null ? keys : new dev.sebridge.fleet.ViewTallies(),
                    null,
                    () -> null))
            .start();
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (server != null) {
      server.close();
      live.close();
    }
  }

  @Test
  void aSignInNeedsTheFormsOwnTokenAndItsCookie() throws Exception {
    start(false);
    String form = send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n");
    String nonce = field(form, "name=\"nonce\" value=\"([0-9a-f]{32})\"");
    assertThat(cookie(form, "sebridge_login")).isEqualTo(nonce);
    // Another site's form: the field is guessable at best, the cookie never comes with it.
    assertThat(signIn(null, nonce, APPROVER)).startsWith("HTTP/1.1 403");
    assertThat(signIn(nonce, "0".repeat(32), APPROVER)).startsWith("HTTP/1.1 403");
    String ok = signIn(nonce, nonce, APPROVER);
    assertThat(ok).startsWith("HTTP/1.1 303").contains("Location: /ui/");
    String session = header(ok, "Set-Cookie: sebridge_fleet=");
    assertThat(session).contains("HttpOnly").contains("SameSite=Strict").doesNotContain("Secure");
  }

  /**
   * A session cookie whose token no longer authenticates (expired) is cleared with the answer, so
   * an open tab stops counting against its address; and from an address whose failing tokens are
   * spent the sign-in form still opens and signs in (the cookie is not looked at there). Before,
   * the page never cleared it, and (once cookies were counted) a spent address got 429 on the
   * sign-in form too: stale tabs behind one NAT locked its users out of signing in again.
   */
  @Test
  void aStaleSessionIsClearedAndSigningInWorksFromASpentAddress() throws Exception {
    start(false);
    String stale = "Cookie: sebridge_fleet=expired-0123456789abcdef\r\n";
    String page = send("GET /ui/ HTTP/1.1\r\nHost: x\r\n" + stale + "\r\n");
    assertThat(page).startsWith("HTTP/1.1 303").contains("Location: /ui/login");
    assertThat(header(page, "Set-Cookie: sebridge_fleet=")).contains("Max-Age=0");
    String fragment = send("GET /ui/fragment/events HTTP/1.1\r\nHost: x\r\n" + stale + "\r\n");
    assertThat(fragment).startsWith("HTTP/1.1 401");
    assertThat(header(fragment, "Set-Cookie: sebridge_fleet=")).contains("Max-Age=0");
    String none = send("GET /ui/fragment/events HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(none).as("no cookie, none cleared").doesNotContain("Set-Cookie: sebridge_fleet=");
    for (int i = 1; i < BearerGate.FAILURES_PER_MINUTE; i++) {
      assertThat(
              send(
                  "GET /ui/fragment/events HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet=guess-"
                      + i
                      + "-0123456789abcdef\r\n\r\n"))
          .startsWith("HTTP/1.1 401");
    }
    assertThat(
            send("GET /ui/ HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet=" + APPROVER + "\r\n\r\n"))
        .as("the address is spent: even a valid cookie is not looked at")
        .startsWith("HTTP/1.1 429");
    String form = send("GET /ui/login HTTP/1.1\r\nHost: x\r\n" + stale + "\r\n");
    assertThat(form).startsWith("HTTP/1.1 200");
    String nonce = field(form, "name=\"nonce\" value=\"([0-9a-f]{32})\"");
    assertThat(signIn(nonce, nonce, APPROVER)).startsWith("HTTP/1.1 303");
    // Signed in, the session's cookie is known here: the page opens, the minute not passed. Before,
    // the first page after signing in from a spent address was 429.
    assertThat(
            send("GET /ui/ HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet=" + APPROVER + "\r\n\r\n"))
        .startsWith("HTTP/1.1 200");
  }

  @Test
  void theSessionCookieIsSecureFromConfigurationNeverFromAHeader() throws Exception {
    start(true);
    String form = send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n");
    String nonce = field(form, "name=\"nonce\" value=\"([0-9a-f]{32})\"");
    assertThat(header(form, "Set-Cookie: sebridge_login=")).contains("; Secure");
    String ok = signIn(nonce, nonce, APPROVER);
    assertThat(header(ok, "Set-Cookie: sebridge_fleet=")).contains("; Secure");
    stop();
    sockets.clear();
    start(false);
    String body = "nonce=" + nonce + "&token=" + APPROVER;
    String forwarded =
        send(
            "POST /ui/login HTTP/1.1\r\nHost: x\r\nX-Forwarded-Proto: https\r\nCookie:"
                + " sebridge_login="
                + nonce
                + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                + body.length()
                + "\r\n\r\n"
                + body);
    assertThat(header(forwarded, "Set-Cookie: sebridge_fleet=")).doesNotContain("Secure");
  }

  @Test
  void signInsInParallelAreCountedBeforeTheirBodiesAndPerForwardedClient() throws Exception {
    start(false);
    String nonce =
        field(send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n"), "value=\"([0-9a-f]{32})\"");
    // 20 guesses sent at once by one client behind the (trusted) proxy: headers first, bodies after
    List<Socket> guesses = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String body = "nonce=" + nonce + "&token=guess-" + i;
      Socket s = new Socket("127.0.0.1", server.port());
      sockets.add(s);
      s.setSoTimeout(10_000);
      s.getOutputStream()
          .write(
              // Application Gateway appends IP:port, a new port for each connection
              ("POST /ui/login HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.7:"
                      + (40_000 + i)
                      + "\r\nCookie:"
                      + " sebridge_login="
                      + nonce
                      + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                      + body.length()
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      guesses.add(s);
      s.getOutputStream().write(body.getBytes(StandardCharsets.US_ASCII));
    }
    int tried = 0;
    int limited = 0;
    for (Socket s : guesses) {
      String a = read(s);
      if (a.startsWith("HTTP/1.1 429")) {
        limited++;
      } else {
        assertThat(a).startsWith("HTTP/1.1 401");
        tried++;
      }
    }
    assertThat(tried).isEqualTo(3);
    assertThat(limited).isEqualTo(17);
    // another client behind the same proxy is not locked out by that one
    String other =
        send(
            "POST /ui/login HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.9\r\nCookie:"
                + " sebridge_login="
                + nonce
                + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                + ("nonce=" + nonce + "&token=" + APPROVER).length()
                + "\r\n\r\nnonce="
                + nonce
                + "&token="
                + APPROVER);
    assertThat(other).startsWith("HTTP/1.1 303");
  }

  /** A client's sign-ins count by its address without a port, and an IPv6 client by its /64. */
  @Test
  void signInsCountByAddressWithoutItsPortAndByAnIpv6ClientsSlash64() {
    assertThat(HttpCall.withoutPort("203.0.113.7:40001")).isEqualTo("203.0.113.7");
    assertThat(HttpCall.withoutPort("203.0.113.7")).isEqualTo("203.0.113.7");
    assertThat(HttpCall.withoutPort("[2001:db8:1:2::5]:443")).isEqualTo("2001:db8:1:2::5");
    assertThat(HttpCall.withoutPort("2001:db8:1:2::5")).isEqualTo("2001:db8:1:2::5");
    assertThat(HttpCall.rateKey("2001:db8:1:2::5"))
        .isEqualTo(HttpCall.rateKey("2001:db8:1:2:aaaa:bbbb:cccc:9"))
        .isNotEqualTo(HttpCall.rateKey("2001:db8:1:3::5"));
    assertThat(HttpCall.rateKey("203.0.113.7")).isEqualTo("203.0.113.7");
    assertThat(HttpCall.rateKey("::ffff:203.0.113.7")).isEqualTo("203.0.113.7");
    assertThat(HttpCall.rateKey("not:an:address")).isEqualTo("not:an:address");
    // Jetty writes a direct IPv6 client's address in brackets
    assertThat(HttpCall.rateKey("[2001:db8:1:2:0:0:0:5]"))
        .isEqualTo(HttpCall.rateKey("2001:db8:1:2::77"));
    assertThat(HttpCall.rateKey(".::")).isEqualTo(".::"); // not a literal: never looked up
    // a trusted proxy written one way is the same proxy Jetty writes another way
    assertThat(HttpCall.canonical("[fd00:0:0:0:0:0:0:4]")).isEqualTo(HttpCall.canonical("fd00::4"));
    assertThat(HttpLimits.canonical(java.util.Set.of("fd00::4", "10.0.0.4:443")))
        .containsExactlyInAnyOrder(HttpCall.canonical("fd00::4"), "10.0.0.4");
    assertThat(HttpCall.canonical("cafe.be")).isEqualTo("cafe.be"); // a name stays as written
  }

  @Test
  void eightyStalledSignInsLeaveTheProbesAndThePageAnswering() throws Exception {
    start(new HttpLimits(Duration.ofSeconds(2), 2, 2, 4096, 3, 1000, false, java.util.Set.of()));
    String nonce =
        field(send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n"), "value=\"([0-9a-f]{32})\"");
    List<Socket> stalled = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      // from another client address than the probes' (one address holds at most 256)
      Socket s = new Socket();
      sockets.add(s);
      s.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
      s.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()), 10_000);
      s.setSoTimeout(15_000);
      s.getOutputStream()
          .write(
              ("POST /ui/login HTTP/1.1\r\nHost: x\r\nCookie: sebridge_login="
                      + nonce
                      + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length:"
                      + " 65536\r\n\r\nn")
                  .getBytes(StandardCharsets.US_ASCII));
      stalled.add(s);
    }
    assertThat(send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200");
    assertThat(send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200");
    for (Socket s : stalled) {
      assertThat(read(s)).startsWith("HTTP/1.1 408");
    }
  }

  @Test
  void thePageAndTheApiShareOnePrincipalsWriteBudget() throws Exception {
    start(false); // 3 writes a minute
    String nonce =
        field(send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n"), "value=\"([0-9a-f]{32})\"");
    String session = cookie(signIn(nonce, nonce, APPROVER), "sebridge_fleet");
    String csrf =
        field(
            send("GET /ui/ HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet=" + session + "\r\n\r\n"),
            "\"X-CSRF-Token\":\"([0-9a-f]+)\"");
    String pageWrite =
        "POST /ui/rollouts/r-1/abort HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
            + session
            + "\r\nX-CSRF-Token: "
            + csrf
            + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\nreason=go";
    String apiWrite =
        "POST /api/rollouts/r-1/abort HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + APPROVER
            + "\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"reason\":\"go\"}";
    assertThat(send(pageWrite)).doesNotStartWith("HTTP/1.1 429");
    assertThat(send(apiWrite)).doesNotStartWith("HTTP/1.1 429");
    assertThat(send(pageWrite)).doesNotStartWith("HTTP/1.1 429");
    assertThat(send(apiWrite)).startsWith("HTTP/1.1 429").contains("Retry-After: 60");
    assertThat(send(pageWrite)).startsWith("HTTP/1.1 429");
  }

  @Test
  void signInsFromOneAddressAreLimitedBeforeTheBodyIsRead() throws Exception {
    start(false);
    String nonce =
        field(send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n"), "value=\"([0-9a-f]{32})\"");
    for (int i = 0; i < 3; i++) {
      assertThat(signIn(nonce, nonce, "not-a-token-" + i)).startsWith("HTTP/1.1 401");
    }
    // Announce a body and send none: the answer comes anyway.
    String limited =
        send(
            "POST /ui/login HTTP/1.1\r\nHost: x\r\nCookie: sebridge_login="
                + nonce
                + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length:"
                + " 500\r\n\r\n");
    assertThat(limited).startsWith("HTTP/1.1 429").contains("Retry-After: 60");
    // even the right token waits out the minute: the limit is on the address, not the token
    assertThat(signIn(nonce, nonce, APPROVER)).startsWith("HTTP/1.1 429");
  }

  @Test
  void aReadersActionIsRefusedBeforeItsBodyIsRead() throws Exception {
    start(false);
    SignedIn signed = signInAs(READER);
    String session = signed.session();
    String csrf = signed.csrf();
    String refused =
        send(
            "POST /ui/events/E/approve HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + session
                + "\r\nX-CSRF-Token: "
                + csrf
                + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length:"
                + " 500\r\n\r\n");
    assertThat(refused).startsWith("HTTP/1.1 403").contains("dashboard may read, not approve");
    String noCsrf =
        send(
            "POST /ui/events/E/approve HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + session
                + "\r\nContent-Length: 500\r\n\r\n");
    assertThat(noCsrf).startsWith("HTTP/1.1 403").contains("no valid CSRF token");
    String noSession =
        send("POST /ui/events/E/approve HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n");
    assertThat(noSession).startsWith("HTTP/1.1 401");
    assertThat(commands.history()).isEmpty();
  }

  /**
   * What the server refuses or fails on the page's paths (a body over the limit, a fault) is the
   * page's message, which htmx swaps in, not the API's JSON: before, the page showed {@code
   * {"error":...}} raw.
   */
  @Test
  void anErrorTheServerMeetsOnThePageIsThePagesMessage() throws Exception {
    start(false);
    SignedIn signed = signInAs(APPROVER);
    String tooLarge =
        send(
            "POST /ui/events/E/approve HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + signed.session()
                + "\r\nX-CSRF-Token: "
                + signed.csrf()
                + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                + (FleetServer.MAX_BODY + 1)
                + "\r\n\r\n");
    assertThat(tooLarge)
        .startsWith("HTTP/1.1 413")
        .containsIgnoringCase("Content-Type: text/html")
        .contains("<p class=\"error\" role=\"alert\" data-testid=\"message\">")
        .contains("at most 65536 bytes")
        .doesNotContain("{\"error\"");
    events.failing.add("e-broken");
    String fault =
        send(
            "GET /ui/events/E-broken/actions HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + signed.session()
                + "\r\n\r\n");
    assertThat(fault)
        .startsWith("HTTP/1.1 500")
        .containsIgnoringCase("Content-Type: text/html")
        .contains("role=\"alert\"")
        .contains("internal error");
    // The API's answers stay JSON.
    String api =
        send(
            "POST /api/events/E/approve HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                + APPROVER
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + (FleetServer.MAX_BODY + 1)
                + "\r\n\r\n");
    assertThat(api).startsWith("HTTP/1.1 413").contains("{\"error\"");
    assertThat(commands.history()).isEmpty();
  }

  /**
   * A page form's field its route does not take, or one given twice that is not a list, is a 400
   * and nothing is sent. Before, {@code vms=vm-1} on an event's approval was ignored (the approval
   * went to every Scheduled VM) and two reasons were recorded as one "a,b".
   */
  @Test
  void aFormFieldTheRouteDoesNotTakeOrGivenTwiceIsA400() throws Exception {
    start(false);
    SignedIn signed = signInAs(APPROVER);
    String session = signed.session();
    String csrf = signed.csrf();
    Map<String, String> refused = new java.util.LinkedHashMap<>();
    refused.put("reason=patch&vms=vm-1", "no field vms");
    refused.put("reason=a&reason=b", "reason more than once");
    for (Map.Entry<String, String> f : refused.entrySet()) {
      String answer =
          send(
              "POST /ui/events/E/approve HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                  + session
                  + "\r\nX-CSRF-Token: "
                  + csrf
                  + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                  + f.getKey().length()
                  + "\r\n\r\n"
                  + f.getKey());
      assertThat(answer).as(f.getKey()).startsWith("HTTP/1.1 400").contains(f.getValue());
    }
    assertThat(commands.history()).isEmpty();
  }

  /**
   * A form the API's contract would refuse as a body is a 400 and nothing is sent: the page checks
   * its forms against docs/fleet-openapi.yaml through the same library. Before, a blank in the
   * limit ({@code maxUnavailable=%205}) and a group given twice were taken by the page, checked by
   * hand, and refused by the API.
   */
  @Test
  void aFormTheApisContractRefusesIsA400() throws Exception {
    start(false);
    SignedIn signed = signInAs(APPROVER);
    Map<String, String> refused = new java.util.LinkedHashMap<>(); // (3 writes a minute here)
    refused.put("/ui/events/E/rollout", "reason=patch&maxUnavailable=%205");
    refused.put("/ui/events/E/rollout|groups", "reason=patch&groupBy=zone,%20zone");
    refused.put("/ui/rollouts/R/skip", "reason=&vmId=vm-1");
    for (Map.Entry<String, String> f : refused.entrySet()) {
      String path = f.getKey().split("\\|")[0];
      String answer =
          send(
              "POST "
                  + path
                  + " HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                  + signed.session()
                  + "\r\nX-CSRF-Token: "
                  + signed.csrf()
                  + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                  + f.getValue().length()
                  + "\r\n\r\n"
                  + f.getValue());
      assertThat(answer).as(f.getKey()).startsWith("HTTP/1.1 400");
    }
    assertThat(commands.history()).isEmpty();
  }

  /**
   * A campaign's rollout form carries what it showed: when the campaign's events changed since (one
   * more came, or its grouping moved), the rollout is refused (409) and nothing is sent; the form
   * shown again rolls out what it now shows. Before, the form looked the campaign up again when
   * sent, and an approver who reviewed 3 events rolled out 4.
   */
  @Test
  void aCampaignRolloutIsRefusedWhenItsEventsChangedSinceTheFormWasShown() throws Exception {
    Instant t0 = Instant.parse("2026-11-23T09:00:00Z");
    for (int i = 0; i < 3; i++) {
      events.map.put("e-" + i, campaignEvent(i, t0.plusSeconds(60L * i)));
    }
    String id = Campaigns.of(events.map.values()).get(0).id();
    start(false);
    SignedIn signed = signInAs(APPROVER);
    String session = signed.session();
    String csrf = signed.csrf();
    java.util.function.Supplier<String> reviewed =
        () -> {
          try {
            return field(
                send(
                    "GET /ui/campaigns/"
                        + id
                        + "/page/1 HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                        + session
                        + "\r\n\r\n"),
                "name=\"reviewed\" value=\"([0-9a-f]+)\"");
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
    String shown = reviewed.get();
    events.map.put("e-3", campaignEvent(3, t0.plusSeconds(180))); // one more, same campaign
    assertThat(Campaigns.of(events.map.values()).get(0).id()).isEqualTo(id);
    java.util.function.Function<String, String> rollOut =
        form ->
            sendQuietly(
                "POST /ui/campaigns/"
                    + id
                    + "/rollout HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                    + session
                    + "\r\nX-CSRF-Token: "
                    + csrf
                    + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                    + form.length()
                    + "\r\n\r\n"
                    + form);
    String stale = rollOut.apply("reason=patch&maxUnavailable=1&reviewed=" + shown);
    assertThat(stale).startsWith("HTTP/1.1 409").contains("changed since the page showed it");
    assertThat(rollOut.apply("reason=patch&maxUnavailable=1")).startsWith("HTTP/1.1 400");
    assertThat(commands.history()).isEmpty();
    String fresh = rollOut.apply("reason=patch&maxUnavailable=1&reviewed=" + reviewed.get());
    assertThat(fresh).startsWith("HTTP/1.1 200").contains("the 4 event(s) of campaign");
    assertThat(commands.history()).hasSize(1);
  }

  /**
   * The open maintenance pages and narrows: of 30 one-event campaigns (27 Freeze, 3 Reboot), the
   * first page shows the 25 with the soonest NotBefore and offers the next; page 2 the other 5, and
   * the previous; a page past the last shows the last (a live refresh after campaigns closed); a
   * type (any case), a source, a text in the description or an empty field ("any") narrow it. A
   * field the list does not take, one given twice, page 0, a text past 256 characters, and a query
   * on another section are 400. Before, the list showed the soonest 25 and sent the SRE to the CLI
   * for the rest, and took any query quietly.
   */
  @Test
  void theOpenMaintenancePagesAndNarrows() throws Exception {
    Instant t0 = Instant.parse("2026-11-23T09:00:00Z");
    for (int i = 0; i < 30; i++) {
      events.map.put(
          "p-" + i,
          listedEvent(
              "P-" + i, i < 27 ? "Freeze" : "Reboot", "patch " + i, t0.plusSeconds(60L * i)));
    }
    start(false);
    String session = signInAs(READER).session();
    java.util.function.Function<String, String> list =
        query ->
            sendQuietly(
                "GET /ui/fragment/events"
                    + query
                    + " HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                    + session
                    + "\r\n\r\n");

    String first = list.apply("");
    assertThat(shownEvents(first)).isEqualTo(range(0, 25));
    assertThat(first)
        .contains("Campaigns 1–25 of 30, the soonest NotBefore first (page 1 of 2)")
        .contains("data-testid=\"events-next\" data-events-page=\"2\"")
        .doesNotContain("data-testid=\"events-previous\"")
        .contains("name=\"page\" value=\"1\"");
    String second = list.apply("?page=2&type=&source=&text=");
    assertThat(shownEvents(second)).isEqualTo(range(25, 30));
    assertThat(second)
        .contains("Campaigns 26–30 of 30")
        .contains("data-testid=\"events-previous\" data-events-page=\"1\"")
        .doesNotContain("data-testid=\"events-next\"")
        .contains("name=\"page\" value=\"2\"");
    assertThat(shownEvents(list.apply("?page=9"))).isEqualTo(range(25, 30));

    String reboots = list.apply("?type=reboot&source=Platform");
    assertThat(shownEvents(reboots)).isEqualTo(range(27, 30));
    assertThat(reboots).doesNotContain("data-testid=\"events-pager\"");
    assertThat(shownEvents(list.apply("?text=PATCH+12"))).containsExactly(12);
    assertThat(list.apply("?type=Freeze&text=patch+28"))
        .contains("No open maintenance matches the filter.");
    assertThat(list.apply("?source=User")).contains("No open maintenance matches the filter.");

    // The page's refusals are the page's message (htmx swaps it in), with the reason.
    Map<String, String> bad =
        Map.of(
            "?zone=1",
            "takes no zone",
            "?page=1&page=2",
            "gives page more than once",
            "?page=0",
            "page: a number from 1, not 0",
            "?page=two",
            "page: a number from 1, not two",
            "?text=" + "x".repeat(257),
            "text: at most 256 characters");
    bad.forEach(
        (query, reason) ->
            assertThat(list.apply(query))
                .as(query)
                .startsWith("HTTP/1.1 400")
                .contains("role=\"alert\" data-testid=\"message\">")
                .contains(reason));
    assertThat(list.apply("?page=999999999"))
        .as("past the last page: the last")
        .startsWith("HTTP/1.1 200")
        .contains("Campaigns 26–30 of 30");
    assertThat(
            send(
                "GET /ui/fragment/coverage?page=2 HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                    + session
                    + "\r\n\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains("the section coverage takes no query");
  }

  /**
   * The rollouts, the silent agents and the approval history page as the open maintenance does: a
   * page's number in the list's own field, a pager with the page before and after, past the last
   * the last. The approval history pages through the newest {@link RecentRequests#KEPT} and says
   * where the older ones are. Until 2026-11-29 the page showed the first 50 silent agents, the
   * newest 50 approvals and 20 rollouts, and no more.
   */
  @Test
  void theRolloutsTheSilentAgentsAndTheApprovalHistoryPage() throws Exception {
    Instant t0 = Instant.parse("2026-11-23T09:00:00Z");
    keys = new dev.sebridge.fleet.ViewTallies();
    for (int i = 0; i < 120; i++) {
      VmView vm =
          new VmView(
              String.format("s-%03d", i),
              String.format("silent-%03d", i),
              null,
              "sub-1",
              "rg",
              "westeurope",
              "1",
              null,
              "0.1.0",
              t0,
              t0,
              t0,
              60,
              Map.of(),
              true,
              java.util.Set.of(),
              null);
      vms.map.put(vm.vmId(), vm);
      keys.keyChanged(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, vm.vmId(), vm);
    }
    recent = new RecentRequests();
    for (int i = 0; i < 230; i++) {
      RequestView r =
          new RequestView(
              new dev.sebridge.fleet.model.ApprovalRequest(
                  "req-" + i,
                  String.format("EV-%03d", i),
                  List.of("vm-" + i),
                  "because",
                  "alice",
                  t0.plusSeconds(i),
                  "api"),
              null,
              Map.of());
      requests.map.put(r.request().requestId(), r);
      recent.keyChanged(
          dev.sebridge.fleet.streams.FleetTopology.REQUESTS_VIEW, r.request().requestId(), r);
    }
    for (int i = 0; i < 45; i++) {
      Rollout r = rollout(String.format("ro-%02d", i), t0.plusSeconds(i));
      rollouts.map.put(r.id(), r);
    }
    start(false);
    String session = signInAs(READER).session();
    java.util.function.BiFunction<String, String, String> get =
        (section, query) ->
            sendQuietly(
                "GET /ui/fragment/"
                    + section
                    + query
                    + " HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                    + session
                    + "\r\n\r\n");

    String silent = get.apply("silent", "");
    assertThat(numbers(silent, "id=\"silent-s-(\\d+)\"")).isEqualTo(range(0, 50));
    assertThat(silent)
        .contains("1–50 of 120 silent agents (page 1 of 3)")
        .contains("data-testid=\"silent-next\" data-page-of=\"silent\" data-page=\"2\"")
        .doesNotContain("silent-previous")
        .contains("id=\"silent-page\" name=\"page\" value=\"1\"");
    String last = get.apply("silent", "?page=3");
    assertThat(numbers(last, "id=\"silent-s-(\\d+)\"")).isEqualTo(range(100, 120));
    assertThat(last)
        .contains("101–120 of 120 silent agents (page 3 of 3)")
        .contains("data-testid=\"silent-previous\" data-page-of=\"silent\" data-page=\"2\"")
        .doesNotContain("silent-next")
        .contains("name=\"page\" value=\"3\"");
    assertThat(numbers(get.apply("silent", "?page=99"), "id=\"silent-s-(\\d+)\""))
        .as("past the last: the last")
        .isEqualTo(range(100, 120));

    String newest = get.apply("approvals", "?page=1");
    List<Integer> firstApprovals = numbers(newest, "<code>EV-(\\d+)</code>");
    assertThat(firstApprovals).hasSize(50).startsWith(229, 228).endsWith(180);
    assertThat(newest)
        .contains("1–50 of 200 newest approvals (page 1 of 4)")
        .doesNotContain("approvals-older");
    String oldest = get.apply("approvals", "?page=4");
    assertThat(numbers(oldest, "<code>EV-(\\d+)</code>")).hasSize(50).startsWith(79).endsWith(30);
    assertThat(oldest)
        .contains("data-testid=\"approvals-older\"")
        .contains("<code>sebridge fleet approvals</code>");

    String second = get.apply("rollouts", "?page=2");
    assertThat(numbers(second, "data-rollout-id=\"ro-(\\d+)\""))
        .as("the newest first, 20 a page")
        .isEqualTo(java.util.stream.IntStream.range(0, 20).mapToObj(i -> 24 - i).toList());
    assertThat(second).contains("21–40 of 45 rollouts (page 2 of 3)");

    Map<String, String> bad =
        Map.of(
            "silent?zone=1", "the section silent takes no zone",
            "approvals?page=0", "page: a number from 1, not 0",
            "rollouts?page=1&page=2", "gives page more than once");
    bad.forEach(
        (query, reason) ->
            assertThat(get.apply(query, "")).as(query).startsWith("HTTP/1.1 400").contains(reason));
  }

  /** The numbers a pattern's first group finds in an answer, in its order. */
  private static List<Integer> numbers(String answer, String pattern) {
    Matcher m = Pattern.compile(pattern).matcher(answer);
    List<Integer> out = new ArrayList<>();
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }

  /** A finished rollout of one event and VM, made at {@code createdAt}. */
  private static Rollout rollout(String id, Instant createdAt) {
    return new Rollout(
        id,
        new dev.sebridge.fleet.rollout.RolloutSpec(
            List.of("ev-" + id),
            "1",
            List.of("zone"),
            Duration.ofMinutes(2),
            Duration.ofMinutes(20)),
        "go",
        "alice",
        "api",
        createdAt,
        Rollout.State.of("completed"),
        null,
        Map.of(),
        Map.of(),
        List.of(),
        List.of(new Rollout.Entry(createdAt, "alice", "created", "go")));
  }

  /**
   * A section asked for with the mark of a change this instance has not applied is 503 with {@code
   * Retry-After} and {@code X-Sebridge-Behind} once its wait is over (the page keeps what it shows
   * and asks again), and 200 once it has; a mark that is not one, or two of them, is 400.
   */
  @Test
  void aSectionAskedWithAMarkThisInstanceHasNotAppliedIs503UntilItHas() throws Exception {
    start(false);
    String session = signInAs(READER).session();
    java.util.function.Function<String, String> silent =
        marks ->
            sendQuietly(
                "GET /ui/fragment/silent HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                    + session
                    + "\r\n"
                    + marks
                    + "\r\n");
    changes.viewHeld(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW);
    changes.viewHeld(dev.sebridge.fleet.streams.FleetTopology.INVENTORY_VIEW);
    String ahead = "X-Sebridge-Views: vms-view@0:10;inventory-view@1:3\r\n";
    String behind = silent.apply(ahead);
    assertThat(behind)
        .startsWith("HTTP/1.1 503")
        .contains("Retry-After: 1")
        .contains("X-Sebridge-Behind: true")
        .contains("behind the change this page was told of");
    changes.viewRecordStarted(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, 0, 10);
    changes.viewRecordDone(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, 0, 10);
    assertThat(silent.apply(ahead)).as("the inventory is not there yet").startsWith("HTTP/1.1 503");
    changes.viewRecordDone(dev.sebridge.fleet.streams.FleetTopology.INVENTORY_VIEW, 1, 3);
    assertThat(silent.apply(ahead)).startsWith("HTTP/1.1 200");
    assertThat(silent.apply("")).as("no mark: nothing to wait for").startsWith("HTTP/1.1 200");
    assertThat(silent.apply("X-Sebridge-Views: vms-view@0:x\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains("X-Sebridge-Views: not a view mark");
    assertThat(silent.apply(ahead + ahead))
        .startsWith("HTTP/1.1 400")
        .contains("X-Sebridge-Views is given 2 times");
    assertThat(silent.apply("X-Sebridge-Views: events-view@0:1\r\n"))
        .as("a store the section does not read")
        .startsWith("HTTP/1.1 400")
        .contains("the section silent does not read events-view");
  }

  /**
   * A campaign's row counts every VM of every event it has, silent agents apart, without reading a
   * VM's view: silence comes from the tallies. Only the events a list or a panel page draws have
   * their VMs' views read. Until 2026-11-29 each rendering of the list read the view of every VM of
   * every campaign shown (at 100,000 VMs after 10 minutes, the generator's one campaign of about
   * 1,200 events of 25 VMs: 30,000 views a rendering, and the page's fetches waited seconds).
   */
  @Test
  void aCampaignsCountsReadNoVmViewAndAPanelPageReadsItsOwnEventsVmsOnly() throws Exception {
    Instant t0 = Instant.parse("2026-11-23T09:00:00Z");
    keys = new dev.sebridge.fleet.ViewTallies();
    for (int i = 0; i < 200; i++) {
      EventView e = listedEvent("H-" + i, "Reboot", "host update", t0.plusSeconds(60L * i));
      events.map.put(e.eventId().toLowerCase(), e);
      keys.keyChanged(
          dev.sebridge.fleet.streams.FleetTopology.EVENTS_VIEW, e.eventId().toLowerCase(), e);
      VmView vm =
          new VmView(
              "id-H-" + i,
              "vm-H-" + i,
              null,
              "sub-1",
              "rg",
              "westeurope",
              "1",
              null,
              "0.1.0",
              t0,
              t0,
              t0,
              60,
              Map.of(),
              i == 7,
              java.util.Set.of("H-" + i),
              null);
      vms.map.put(vm.vmId(), vm);
      keys.keyChanged(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, vm.vmId(), vm);
    }
    start(false);
    String session = signInAs(READER).session();
    vms.gets.clear();
    String list =
        send(
            "GET /ui/fragment/events HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + session
                + "\r\n\r\n");
    assertThat(list).startsWith("HTTP/1.1 200").contains("199 scheduled").contains("1 silent");
    assertThat(vms.gets).as("no VM view read for the row's counts").isEmpty();
    String campaign = field(list, "hx-get=\"/ui/campaigns/([^/\"]+)/page/1\"");
    String panel =
        send(
            "GET /ui/campaigns/"
                + campaign
                + "/page/2 HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + session
                + "\r\n\r\n");
    assertThat(panel).startsWith("HTTP/1.1 200").contains("1 silent");
    assertThat(vms.gets)
        .as("the VMs of the 50 events the panel's page 2 draws, each once")
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.IntStream.range(50, 100).mapToObj(i -> "id-H-" + i).toList());
  }

  /**
   * A campaign's row and panel count its closed events from the campaign index, reading none of
   * their views; a panel page reads the views of the closed events it draws, and only those. Until
   * 2026-11-29 each rendering read and parsed every closed event of every campaign shown: a day of
   * a host update's closed events at every refresh of every open page.
   */
  @Test
  void aCampaignsClosedEventsAreCountedWithoutReadingTheirViews() throws Exception {
    Instant t0 = Instant.parse("2026-11-23T09:00:00Z");
    keys = new dev.sebridge.fleet.ViewTallies();
    campaigns = new CampaignIndex();
    for (int i = 0; i < 210; i++) {
      EventView e = listedEvent("H-" + i, "Reboot", "host update", t0.plusSeconds(60L * i));
      if (i >= 60) { // 150 closed, completed
        e =
            new EventView(
                e.eventId(),
                e.eventType(),
                e.eventSource(),
                t0.plusSeconds(60L * (1000 - i)), // the later seen, the sooner: not index order
                e.durationInSeconds(),
                e.description(),
                e.resources(),
                e.firstSeenAt(),
                e.lastSeenAt(),
                t0.plusSeconds(60L * i + 30),
                Map.of(
                    "id-H-" + i,
                    new dev.sebridge.fleet.model.VmEventState(
                        "id-H-" + i, "vm-H-" + i, "1", null, "completed", null, t0, null)),
                null,
                null);
      }
      String key = e.eventId().toLowerCase();
      events.map.put(key, e);
      keys.keyChanged(dev.sebridge.fleet.streams.FleetTopology.EVENTS_VIEW, key, e);
      campaigns.keyChanged(dev.sebridge.fleet.streams.FleetTopology.EVENTS_VIEW, key, e);
    }
    start(false);
    String session = signInAs(READER).session();
    events.gets.clear();
    String list =
        send(
            "GET /ui/fragment/events HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + session
                + "\r\n\r\n");
    assertThat(list)
        .startsWith("HTTP/1.1 200")
        .contains("campaign of 210 event(s), 60 open, 210 VM(s)")
        .contains("60 scheduled")
        .contains("150 completed");
    assertThat(events.gets).as("no event view read for the row").isEmpty();
    assertThat(events.scans).hasValue(0);
    String campaign = field(list, "hx-get=\"/ui/campaigns/([^/\"]+)/page/1\"");
    String panel =
        send(
            "GET /ui/campaigns/"
                + campaign
                + "/page/2 HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                + session
                + "\r\n\r\n");
    assertThat(panel).startsWith("HTTP/1.1 200").contains("150 completed");
    assertThat(events.gets)
        .as("page 2: 10 open events (kept), then the first 40 closed ones by NotBefore, read")
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(0, 40).mapToObj(i -> "h-" + (209 - i)).toList());
    assertThat(panel).contains("data-event-id=\"H-50\"").contains("data-event-id=\"H-170\"");
  }

  /**
   * A narrowed list, as a later page, is rendered once for every page of a role asking for the same
   * views: the second page asking reads no view. Until 2026-11-29 each was rendered for its
   * request, so every open page on a list's page 2 rendered it again at each change.
   */
  @Test
  void aNarrowedListIsRenderedOnceForThePagesAskingForIt() throws Exception {
    Instant t0 = Instant.parse("2026-11-23T09:00:00Z");
    keys = new dev.sebridge.fleet.ViewTallies();
    EventView e = listedEvent("N-1", "Reboot", "host update", t0);
    events.map.put("n-1", e);
    keys.keyChanged(dev.sebridge.fleet.streams.FleetTopology.EVENTS_VIEW, "n-1", e);
    start(false);
    List<String> answers = new ArrayList<>();
    List<Integer> reads = new ArrayList<>();
    for (String session : List.of(signInAs(READER).session(), signInAs(READER).session())) {
      int before = vms.gets.size();
      answers.add(
          send(
              "GET /ui/fragment/events?text=host HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet="
                  + session
                  + "\r\n\r\n"));
      reads.add(vms.gets.size() - before);
    }
    assertThat(answers).allSatisfy(a -> assertThat(a).startsWith("HTTP/1.1 200").contains("N-1"));
    assertThat(reads).as("the inline event's VM read by the first page only").containsExactly(1, 0);
  }

  /** The numbers of the events {@link #listedEvent} made that this list shows, in its order. */
  private static List<Integer> shownEvents(String answer) {
    Matcher m = Pattern.compile("data-event-id=\"P-(\\d+)\"").matcher(answer);
    List<Integer> out = new ArrayList<>();
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }

  private static List<Integer> range(int from, int to) {
    return java.util.stream.IntStream.range(from, to).boxed().toList();
  }

  /** A one-VM open event, seen at {@code seen}, starting an hour later. */
  private static EventView listedEvent(String id, String type, String description, Instant seen) {
    return new EventView(
        id,
        type,
        "Platform",
        seen.plusSeconds(3600),
        5,
        description,
        List.of("vm-" + id),
        seen,
        seen,
        null,
        Map.of(
            "id-" + id,
            new dev.sebridge.fleet.model.VmEventState(
                "id-" + id, "vm-" + id, "1", null, "scheduled", null, seen, null)));
  }

  private static EventView campaignEvent(int i, Instant seen) {
    return new EventView(
        "e-" + i,
        "Freeze",
        "Platform",
        seen.plusSeconds(3600),
        5,
        "host update",
        List.of("vm-" + i),
        seen,
        seen,
        null,
        Map.of(
            "id-" + i,
            new dev.sebridge.fleet.model.VmEventState(
                "id-" + i, "vm-" + i, "1", null, "scheduled", null, seen, null)));
  }

  private String sendQuietly(String request) {
    try {
      return send(request);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A page session: its cookie and the CSRF token its page carries. */
  record SignedIn(String session, String csrf) {}

  /** Signs in to the page with this token (the form's nonce and cookie), and opens the page. */
  private SignedIn signInAs(String token) throws IOException {
    String nonce =
        field(send("GET /ui/login HTTP/1.1\r\nHost: x\r\n\r\n"), "value=\"([0-9a-f]{32})\"");
    String session = cookie(signIn(nonce, nonce, token), "sebridge_fleet");
    String page =
        send("GET /ui/ HTTP/1.1\r\nHost: x\r\nCookie: sebridge_fleet=" + session + "\r\n\r\n");
    return new SignedIn(session, field(page, "\"X-CSRF-Token\":\"([0-9a-f]+)\""));
  }

  private String signIn(String cookie, String nonce, String token) throws IOException {
    String body = "nonce=" + nonce + "&token=" + token;
    return send(
        "POST /ui/login HTTP/1.1\r\nHost: x\r\n"
            + (cookie == null ? "" : "Cookie: sebridge_login=" + cookie + "\r\n")
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
            + body.length()
            + "\r\n\r\n"
            + body);
  }

  private static String field(String answer, String regex) {
    Matcher m = Pattern.compile(regex).matcher(answer);
    assertThat(m.find()).as("%s in %s", regex, answer).isTrue();
    return m.group(1);
  }

  private static String header(String answer, String start) {
    for (String line : answer.split("\r\n")) {
      if (line.startsWith(start)) {
        return line;
      }
    }
    throw new AssertionError("no " + start + " in " + answer);
  }

  private static String cookie(String answer, String name) {
    String h = header(answer, "Set-Cookie: " + name + "=");
    String v = h.substring(("Set-Cookie: " + name + "=").length());
    return v.substring(0, v.indexOf(';'));
  }

  /** Sends one request on a new connection and reads its whole answer. */
  private String send(String request) throws IOException {
    Socket s = new Socket("127.0.0.1", server.port());
    sockets.add(s);
    s.setSoTimeout(10_000);
    s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
    s.getOutputStream().flush();
    return read(s);
  }

  /** The whole answer on this connection (until its Content-Length, or the end). */
  private static String read(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try {
      int n;
      while ((n = in.read(buf)) > 0) {
        b.write(buf, 0, n);
        String a = b.toString(StandardCharsets.ISO_8859_1); // one char a byte, as Content-Length
        int end = a.indexOf("\r\n\r\n");
        Matcher m = Pattern.compile("(?i)content-length: (\\d+)").matcher(a);
        if (end > 0 && m.find() && a.length() - end - 4 >= Integer.parseInt(m.group(1))) {
          break;
        }
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no answer: " + b, e);
    }
    return b.toString(StandardCharsets.UTF_8);
  }
}
