package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.app.fleet.FleetLab;
import dev.sebridge.fleet.FleetService;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.simulator.azure.ResourceGraphEndpoint;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The fleet web page in a real browser: Debian's chromium driven by Selenium through Debian's
 * chromedriver (.ci/run installs both; this test fails, never skips, without them), against a fleet
 * service fed by twelve real agents. Screenshots go to target/screenshots (and, with
 * -Dsebridge.screenshots=docs/images, to the docs).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// Exclusive: a browser, twelve agents and a broker on two cores would slow the timing-sensitive
// classes beside it (FleetEndToEndTest's 2 s view latency) and itself.
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ_WRITE)
class FleetPageBrowserTest {
  static final String CHROMIUM = "/usr/bin/chromium";
  static final String CHROMEDRIVER = "/usr/bin/chromedriver";
  static final Duration WAIT = Duration.ofSeconds(60);
  static final String NO_AGENT = "4f1c2b7e-0000-4000-8000-00000000a9e1";
  static final String INVENTED = "6b9d0c3a-0000-4000-8000-0000000f0f0f";

  Path work;
  FleetLab lab;
  FleetService fleet;
  ImdsSimulator sim;
  WebDriver browser;
  ResourceGraphEndpoint graph;
  String base;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    assertThat(new File(CHROMIUM).canExecute())
        .as("chromium is required (apt-get install chromium chromium-driver; .ci/run does)")
        .isTrue();
    assertThat(new File(CHROMEDRIVER).canExecute()).as("chromedriver is required").isTrue();
    work = Files.createTempDirectory("fleet-page-");
    lab = FleetLab.start(work, new FleetLab.Options(12, 3, 1, Duration.ofSeconds(1)));
    sim = lab.simulator();
    // Azure's inventory, from a local Resource Graph through the Azure SDK: every lab VM, and one
    // that has no agent.
    graph = new ResourceGraphEndpoint();
    for (SimVm vm : sim.vms()) {
      graph.add(
          ResourceGraphEndpoint.vm(vm.vmId(), vm.name(), vm.zone(), vm.vmScaleSetName(), Map.of()),
          false);
    }
    graph.add(ResourceGraphEndpoint.vm(NO_AGENT, "db-legacy", null, null, Map.of()), false);
    javax.net.ssl.SSLContext trustsGraph =
        dev.sebridge.simulator.azure.LoopbackTls.get().clientContext();
    fleet =
        lab.startFleet(
            "page",
            Map.of(
                "fleet.inventory.subscriptions",
                "00000000-0000-0000-0000-000000000000",
                "fleet.inventory.endpoint",
                graph.endpoint().toString()),
            b ->
                b.inventory(
                    request ->
                        reactor.core.publisher.Mono.just(
                            new com.azure.core.credential.AccessToken(
                                ResourceGraphEndpoint.TOKEN,
                                java.time.OffsetDateTime.now().plusHours(1))),
                    new com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder(
                            HttpClient.newBuilder().sslContext(trustsGraph))
                        .build()));
    base = "http://127.0.0.1:" + fleet.port();
    // The agents' first envelopes are stamped against the inventory: it is read first.
    org.awaitility.Awaitility.await()
        .atMost(WAIT)
        .until(() -> api("GET", "/api/coverage", null).path("inventory").asInt() == 13);
    lab.startAgents(Duration.ofMillis(250), Duration.ofSeconds(1));
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800");
    browser =
        new ChromeDriver(
            new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build(),
            options);
  }

  @AfterAll
  void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (lab != null) {
      lab.close();
    }
    if (graph != null) {
      graph.close();
    }
  }

  @Test
  @Order(1)
  void aReaderSeesEventsLiveButNoActionAndForgedPostsAreRefused() throws Exception {
    signIn(FleetLab.READER_TOKEN);
    assertThat(browser.findElement(By.cssSelector("[data-testid=who]")).getText())
        .contains("dashboard@demo")
        .contains("reader");
    // the page is open; the event is scheduled afterwards and shows up without a reload
    String freeze =
        sim.addEvent(
            EventSpec.scheduled("Freeze", List.of(vm(9).name(), vm(10).name()))
                .withNotice(900)
                .withDuration(5));
    By card = By.cssSelector("[data-event-id='" + freeze + "']");
    waitFor(card);
    waitUntilText(card, "2 scheduled");
    assertThat(browser.findElement(card).getText()).contains("Freeze").contains("Starts in");
    assertThat(browser.findElements(By.cssSelector("[data-testid=act]"))).isEmpty();
    shot("fleet-page-reader", By.id("maintenance"));

    String readerCookie = browser.manage().getCookieNamed("sebridge_fleet").getValue();
    assertThat(browser.manage().getCookieNamed("sebridge_fleet").isHttpOnly()).isTrue();
    // a reader with a valid CSRF token: 403
    assertThat(post("/ui/events/" + freeze + "/approve", readerCookie, csrf(), "reason=x"))
        .isEqualTo(403);
    // a forged cross-site form: the approver's cookie, no CSRF header: 403
    signIn(FleetLab.APPROVER_TOKEN);
    String approverCookie = browser.manage().getCookieNamed("sebridge_fleet").getValue();
    assertThat(post("/ui/events/" + freeze + "/approve", approverCookie, null, "reason=x"))
        .isEqualTo(403);
    assertThat(
            post("/ui/events/" + freeze + "/approve", approverCookie, "0".repeat(32), "reason=x"))
        .isEqualTo(403);
    assertThat(sim.startRequests()).noneMatch(r -> r.eventIds().contains(freeze));
    sim.cancelEvent(freeze);
  }

  @Test
  @Order(2)
  void anApproverRollsOutInWavesSeesAHaltResumesAndSeesItFinish() throws Exception {
    signIn(FleetLab.APPROVER_TOKEN);
    assertThat(browser.findElement(By.cssSelector("[data-testid=who]")).getText())
        .contains("sre-oncall@demo")
        .contains("approver");
    // Six VMs, two per zone, each with its own Reboot (one event per VM, as Azure sends host
    // updates); the simulator keeps the third one Started until the test lets it complete.
    List<String> events = new ArrayList<>();
    String held = null;
    for (int i = 0; i < 6; i++) {
      EventSpec spec =
          EventSpec.scheduled("Reboot", List.of(vm(i).name()))
              .withNotice(1800)
              .withStartedFor(i == 2 ? 3600 : 2)
              .withDescription("Host OS update");
      String id = sim.addEvent(spec);
      events.add(id);
      if (i == 2) {
        held = id;
      }
    }
    // And a Reboot of another update on a seventh VM: the form offers it, unchecked.
    String other =
        sim.addEvent(
            EventSpec.scheduled("Reboot", List.of(vm(7).name()))
                .withNotice(1800)
                .withDescription("Guest agent update"));
    for (String id : events) {
      waitFor(By.cssSelector("[data-event-id='" + id + "'] [data-testid=act]"));
    }
    waitFor(By.cssSelector("[data-event-id='" + other + "'] [data-testid=act]"));
    shot("fleet-page-maintenance", By.tagName("header"));

    // keyboard only: Tab to the first event's button, Enter opens its forms
    tabTo("act-" + events.get(0));
    new Actions(browser).sendKeys(Keys.ENTER).perform();
    WebElement form = waitFor(By.cssSelector("[data-testid=rollout-form]"));
    for (String id : events) {
      assertThat(
              form.findElement(By.cssSelector("input[name=events][value='" + id + "']"))
                  .isSelected())
          .as("the rollout form offers every open Reboot of the same update")
          .isTrue();
    }
    assertThat(
            form.findElement(By.cssSelector("input[name=events][value='" + other + "']"))
                .isSelected())
        .as("a Reboot of another update is offered, not checked")
        .isFalse();
    sim.cancelEvent(other);
    set(form, "max-unavailable", "1");
    form.findElement(By.cssSelector("input[name=groupBy][value=zone]")).click();
    set(form, "settle", "1s");
    set(form, "timeout", "12s");
    set(form, "rollout-reason", "patch window, one VM per zone at a time");
    form.findElement(By.cssSelector("[data-testid=start-rollout]")).click();
    assertThat(waitFor(By.cssSelector("#action-result [data-testid=message]")).getText())
        .startsWith("Rollout ");

    WebElement rollout = waitFor(By.cssSelector("[data-testid=rollout]"));
    String rolloutId = rollout.getAttribute("data-rollout-id");
    By card = By.cssSelector("[data-rollout-id='" + rolloutId + "']");
    // waves proceed: never more than one VM per zone between approved and back
    new WebDriverWait(browser, WAIT)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(
            d ->
                d.findElement(card).findElements(By.cssSelector("[data-testid=wave]")).size() >= 2);
    shot("fleet-page-rollout", card);
    // the held VM does not come back in time: the rollout halts and says which VM and why
    WebElement halt =
        new WebDriverWait(browser, WAIT)
            .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
            .until(
                ExpectedConditions.visibilityOfNestedElementsLocatedBy(
                    card, By.cssSelector("[data-testid=halt]")))
            .get(0);
    assertThat(halt.getText()).contains(vm(2).name()).contains("not back in time");
    int wavesAtHalt =
        browser.findElement(card).findElements(By.cssSelector("[data-testid=wave]")).size();
    shot("fleet-page-halt", card);

    sim.completeEvent(held);
    // the rollouts list is re-rendered live: find and click in one retried step
    new WebDriverWait(browser, WAIT)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(
            d -> {
              d.findElement(card).findElement(By.cssSelector("[data-testid=rollout-act]")).click();
              return true;
            });
    WebElement resume = waitFor(By.cssSelector("[data-testid=resume-form]"));
    set(resume, "resume-reason", "web-3 is back, checked by hand");
    resume.findElement(By.cssSelector("[data-testid=resume]")).click();
    new WebDriverWait(browser, WAIT)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(
            d ->
                d.findElement(card)
                    .findElement(By.cssSelector("[data-testid=rollout-state]"))
                    .getText()
                    .equals("completed"));
    assertThat(browser.findElement(card).findElements(By.cssSelector("[data-testid=wave]")).size())
        .isGreaterThanOrEqualTo(wavesAtHalt);
    shot("fleet-page-completed", card);
    // every VM's event was approved exactly once, by the rollout
    for (int i = 0; i < 6; i++) {
      String name = vm(i).name();
      assertThat(sim.startRequests().stream().filter(r -> r.vm().equals(name)).count())
          .as("StartRequests from %s", name)
          .isEqualTo(1);
    }
  }

  @Test
  @Order(3)
  void aCampaignOfTwoHundredFiveEventsIsOneRowPagedInThePanelAndRolledOutAsOne() throws Exception {
    signIn(FleetLab.APPROVER_TOKEN);
    // Azure's way: a guest patch as one-VM events of one description, seen within minutes (here
    // spread over the lab's twelve VMs); more than the event form offers (PageActions.OFFERED).
    int count = 205;
    List<String> events = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        events.add(
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(vm(i % 12).name()))
                    .withNotice(3600)
                    .withDescription("Guest OS patch 2026-11")));
      }
      By row =
          By.xpath(
              "//section[@data-testid='campaign'][.//*[@data-testid='campaign-size']"
                  + "[contains(., 'campaign of 205 event(s), 205 open, 12 VM(s)')]]");
      waitFor(row);
      waitUntilText(row, "205 scheduled");
      // One row: its VMs by status, zone and scale set, none of its events drawn in the list.
      WebElement campaign = browser.findElement(row);
      String id = campaign.getAttribute("data-campaign-id");
      assertThat(campaign.findElements(By.cssSelector("[data-testid=event]"))).isEmpty();
      assertThat(campaign.getText()).contains("Guest OS patch 2026-11").contains("By zone");
      shot("fleet-page-campaign", row);

      // Its events open in the panel, fifty a page.
      new WebDriverWait(browser, WAIT)
          .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
          .until(
              d -> {
                d.findElement(row)
                    .findElement(By.cssSelector("[data-testid=campaign-events]"))
                    .click();
                return true;
              });
      By panel = By.cssSelector("[data-testid=campaign-panel][data-campaign-id='" + id + "']");
      waitUntilText(panel, "Events 1 to 50 of 205 (page 1 of 5)");
      List<String> seen = new ArrayList<>();
      for (int page = 1; page <= 5; page++) {
        waitUntilText(panel, "(page " + page + " of 5)");
        List<WebElement> cards =
            browser.findElement(panel).findElements(By.cssSelector("[data-testid=event]"));
        assertThat(cards).hasSize(page < 5 ? 50 : 5);
        cards.forEach(c -> seen.add(c.getAttribute("data-event-id")));
        if (page < 5) {
          browser
              .findElement(panel)
              .findElement(By.cssSelector("[data-testid=campaign-next]"))
              .click();
        }
      }
      assertThat(seen).containsExactlyInAnyOrderElementsOf(events);

      // Rolled out as one: the campaign's form takes all 205, as the CLI's --campaign does.
      WebElement form =
          browser
              .findElement(panel)
              .findElement(By.cssSelector("[data-testid=campaign-rollout-form]"));
      assertThat(form.findElement(By.cssSelector("[data-testid=campaign-rollable]")).getText())
          .contains("205 open event(s)");
      set(form, "max-unavailable", "1");
      form.findElement(By.cssSelector("input[name=groupBy][value=zone]")).click();
      set(form, "rollout-reason", "guest patch, one VM per zone at a time");
      shot("fleet-page-campaign-rollout", panel);
      form.findElement(By.cssSelector("[data-testid=start-campaign-rollout]")).click();
      String message = waitFor(By.cssSelector("#campaign-result [data-testid=message]")).getText();
      assertThat(message).contains("205 event(s) of campaign " + id);
      String rolloutId = message.replaceAll("^Rollout (\\S+) started.*$", "$1");
      // Accepted is written to the rollouts topic; the view has it a moment later.
      JsonNode rollout =
          org.awaitility.Awaitility.await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> found("/api/rollouts/" + rolloutId), java.util.Objects::nonNull);
      List<String> taken = new ArrayList<>();
      rollout.path("spec").path("eventIds").forEach(e -> taken.add(e.asText()));
      assertThat(taken).containsExactlyInAnyOrderElementsOf(events);
      api("POST", "/api/rollouts/" + rolloutId + "/abort", "{\"reason\":\"test over\"}");
    } finally {
      for (String e : events) {
        try {
          sim.cancelEvent(e);
        } catch (IllegalStateException released) {
          // the rollout's first wave approved it before the abort: it runs its course
        }
      }
    }
  }

  /**
   * Coverage against Azure's inventory: the VM Azure lists without an agent, and a vmId Azure does
   * not list heartbeating as a member of scale set {@code web} (any process on a VM can take the
   * agents' identity), marked "unknown VM" in the section and in its panel and counted in no group.
   */
  @Test
  @Order(4)
  void coverageShowsTheVmWithoutAnAgentAndMarksAnInventedOneUnknown() throws Exception {
    signIn(FleetLab.READER_TOKEN);
    By counts = By.cssSelector("[data-testid=coverage-counts]");
    waitUntilText(counts, "Azure lists 13 VMs");
    waitUntilText(counts, "12 with a live agent, 0 silent, 1 without an agent. 0 unknown VMs");
    assertThat(waitFor(By.cssSelector("[data-testid=without-agent-table]")).getText())
        .contains("db-legacy")
        .contains(NO_AGENT);
    assertThat(browser.findElements(By.cssSelector("[data-testid=unknown-table]"))).isEmpty();
    // the silent section, from the tallies kept as the views change: every agent is live
    waitUntilText(By.cssSelector("[data-testid=silent]"), "Every agent has been heard from.");

    heartbeat(INVENTED, "web-impostor<b>", "1", Duration.ofSeconds(60));
    // live, without a reload
    waitUntilText(counts, "1 unknown VMs");
    By unknown = By.cssSelector("[data-testid=unknown-table]");
    // what it says of itself is shown as text, never as markup
    assertThat(waitFor(unknown).getText()).contains("web-impostor<b>").contains("unknown VM");
    shot("fleet-page-coverage", By.id("coverage"));
    new WebDriverWait(browser, WAIT)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(
            d -> {
              d.findElement(By.id("unknown-" + INVENTED)).click();
              return true;
            });
    waitFor(By.cssSelector("#panel [data-testid=unknown-vm]"));
    assertThat(browser.findElement(By.id("panel")).getText())
        .contains("VM web-impostor<b>")
        .contains("counts in no group");
    assertThat(api("GET", "/api/coverage", null).path("unknown").asInt()).isEqualTo(1);
  }

  /**
   * The open maintenance narrowed and paged in the browser, and kept so live: 27 campaigns of one
   * text (among the lab's others) narrowed by typing it, 25 on the first page, Next shows the last
   * two; one more campaign arriving shows on that page without a reload, the filter and the page
   * kept (the live refresh sends both); a type none of them has says so. Before, the list showed
   * the soonest 25 of the fleet and sent the SRE to the CLI for the rest.
   */
  @Test
  @Order(5)
  void theOpenMaintenanceNarrowsAndPagesAndALiveChangeKeepsBoth() throws Exception {
    signIn(FleetLab.READER_TOKEN);
    List<String> events = new ArrayList<>();
    java.util.function.IntFunction<String> probe =
        i ->
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(vm(i % 12).name()))
                    .withNotice(7200 + 60 * i)
                    .withDescription(String.format("Filter probe %02d", i)));
    try {
      for (int i = 0; i < 27; i++) {
        events.add(probe.apply(i));
      }
      By pager = By.cssSelector("[data-testid=events-pager]");
      By list = By.cssSelector("[data-testid=events]");
      waitFor(By.cssSelector("[data-testid=filter-text]")).sendKeys("FILTER PROBE");
      waitUntilText(pager, "Campaigns 1–25 of 27 matching");
      assertThat(browser.findElement(list).getText())
          .contains("Filter probe 00")
          .doesNotContain("Filter probe 25");
      // Live refreshes crossing Next must not take the page back to 1, however the answers cross.
      // Made so: the browser holds every request for the list until told (the page's own
      // XMLHttpRequests, wrapped: a held request is one under way with no answer yet; aborted, it
      // is sent and aborted at once, which fires what aborting one under way fires). Two
      // refreshes are told and Next clicked while the first is held; then whatever is still
      // under way is answered newest first, one answer at a time. Without hx-sync the oldest
      // refresh, answered last, showed page 1 again.
      JavascriptExecutor js = (JavascriptExecutor) browser;
      js.executeScript(
          "window.__held = []; window.__answers = 0;"
              + " window.__hold = u => u.indexOf('/ui/fragment/events') >= 0;"
              + " const proto = XMLHttpRequest.prototype;"
              + " const open = proto.open, send = proto.send, abort = proto.abort;"
              + " window.__send = (h) => send.call(h.xhr, h.body);"
              + " proto.open = function(m, u) { this.__u = u; return open.apply(this, arguments); };"
              + " proto.send = function(b) {"
              + "   if (this.__u.indexOf('/ui/fragment/events') >= 0) {"
              + "     this.addEventListener('load', () => window.__answers++); }"
              + "   if (window.__hold(this.__u)) { window.__held.push({xhr: this, body: b}); }"
              + "   else { send.call(this, b); } };"
              + " proto.abort = function() {"
              + "   const i = window.__held.findIndex(h => h.xhr === this);"
              + "   if (i >= 0) { send.call(this, window.__held.splice(i, 1)[0].body); }"
              + "   return abort.call(this); };");
      js.executeScript("htmx.trigger(document.getElementById('events'), 'sse:events')");
      new WebDriverWait(browser, WAIT)
          .until(d -> ((Number) js.executeScript("return window.__held.length")).intValue() >= 1);
      js.executeScript(
          "htmx.trigger(document.getElementById('events'), 'sse:events');"
              + " document.querySelector('[data-testid=events-next]').click();"
              + " window.__hold = u => false;");
      while (((Number) js.executeScript("return window.__held.length")).intValue() > 0) {
        int answered = ((Number) js.executeScript("return window.__answers")).intValue();
        js.executeScript("window.__send(window.__held.pop())"); // the newest still held
        new WebDriverWait(browser, WAIT)
            .until(
                d -> ((Number) js.executeScript("return window.__answers")).intValue() > answered);
      }
      waitUntilText(pager, "Campaigns 26–27 of 27 matching");
      events.add(probe.apply(27));
      waitUntilText(pager, "Campaigns 26–28 of 28 matching");
      assertThat(browser.findElement(list).getText())
          .contains("Filter probe 27")
          .doesNotContain("Filter probe 00");
      shot("fleet-page-filtered", By.id("maintenance"));
      new org.openqa.selenium.support.ui.Select(
              browser.findElement(By.cssSelector("[data-testid=filter-type]")))
          .selectByVisibleText("Freeze");
      waitUntilText(list, "No open maintenance matches the filter.");
    } finally {
      for (String e : events) {
        sim.cancelEvent(e);
      }
    }
  }

  /**
   * An agent that falls silent shows in the silent section without a reload: the section is told
   * when the silent agents change (the tallies kept as the views change), no longer at every
   * heartbeat of the fleet. Its one heartbeat says one comes every second: silent at the service's
   * first look (every 10 s) after a few seconds without one.
   */
  @Test
  @Order(6)
  void anAgentThatFallsSilentShowsInTheSilentSectionLive() throws Exception {
    signIn(FleetLab.READER_TOKEN);
    By silent = By.cssSelector("[data-testid=silent]");
    waitUntilText(silent, "Every agent has been heard from.");
    String quiet = "5f7c1d2e-0000-4000-8000-00000000c0de";
    heartbeat(quiet, "web-quiet", "2", Duration.ofSeconds(1));
    org.awaitility.Awaitility.await("the service marks it silent")
        .atMost(Duration.ofSeconds(40))
        .until(() -> found("/api/vms/" + quiet), vm -> vm != null && vm.path("silent").asBoolean());
    waitUntilText(silent, "web-quiet"); // live, without a reload
    assertThat(browser.findElement(By.cssSelector("[data-testid=silent-table]")).getText())
        .contains("web-quiet");
  }

  /**
   * The page sends back the mark each section was told with, and keeps a section an instance
   * answers "behind" for, asking again a second later, until a newer change is told. The instance
   * here is the only one, so the mark that is behind is made up (a change this instance cannot have
   * applied: offset 10^12 of the approvals' topic), dispatched as the live stream dispatches one;
   * LaggingInstancePageTest has two instances on a broker and what B's views really held.
   */
  @Test
  @Order(7)
  void aSectionAnsweredBehindIsKeptAndAskedAgainWithItsMarkUntilANewerChange() throws Exception {
    // (approved, they start and end as the simulator's events do: nothing to cancel)
    approved(vm(5), "a first change");
    signIn(FleetLab.APPROVER_TOKEN);
    By approvals = By.cssSelector("[data-testid=approvals]");
    waitUntilText(approvals, "a first change");
    JavascriptExecutor js = (JavascriptExecutor) browser;
    // The stream names every section at its first tick: the approval history is asked for a
    // second time (after its load) with the stream's own mark, before the made-up one is sent.
    new WebDriverWait(browser, WAIT)
        .until(
            d ->
                ((Number)
                            js.executeScript(
                                "return performance.getEntriesByType('resource').filter(e =>"
                                    + " e.name.indexOf('/ui/fragment/approvals') >= 0 &&"
                                    + " e.responseEnd > 0).length"))
                        .intValue()
                    >= 2);
    String shown = browser.findElement(approvals).getText();
    // Every request for the approval history, with the mark it carried and its answer's status.
    js.executeScript(
        "window.__asked = [];"
            + " const proto = XMLHttpRequest.prototype;"
            + " const open = proto.open, header = proto.setRequestHeader;"
            + " proto.open = function(m, u) { this.__u = u; return open.apply(this, arguments); };"
            + " proto.setRequestHeader = function(n, v) {"
            + "   if (this.__u.indexOf('/ui/fragment/approvals') >= 0 && n === 'X-Sebridge-Views') {"
            + "     const r = {mark: v, status: 0}; window.__asked.push(r);"
            + "     this.addEventListener('load', () => { r.status = this.status; }); }"
            + "   return header.apply(this, arguments); };");
    String ahead = "requests-view@0:1000000000000";
    js.executeScript(
        "htmx.trigger(document.getElementById('approval-list'), 'sse:approvals', {data: arguments[0]})",
        ahead);
    java.util.function.Supplier<List<Map<String, Object>>> asked =
        () -> {
          @SuppressWarnings("unchecked")
          List<Map<String, Object>> a =
              (List<Map<String, Object>>) js.executeScript("return window.__asked");
          return a;
        };
    new WebDriverWait(browser, WAIT)
        .until(
            d ->
                asked.get().stream()
                        .filter(r -> ahead.equals(r.get("mark")))
                        .filter(r -> ((Number) r.get("status")).intValue() == 503)
                        .count()
                    >= 2);
    assertThat(browser.findElement(approvals).getText())
        .as("kept as it was, not the 503's message")
        .isEqualTo(shown)
        .doesNotContain("behind");

    // A real change: the stream tells the section with its own mark, which this instance has.
    approved(vm(6), "a newer change");
    waitUntilText(approvals, "a newer change");
    List<Map<String, Object>> real =
        asked.get().stream().filter(r -> !ahead.equals(r.get("mark"))).toList();
    assertThat(real).isNotEmpty();
    assertThat(real.get(real.size() - 1).get("mark").toString()).startsWith("requests-view@");
  }

  /**
   * The lists page in the browser: 55 more agents fall silent (56 with the one above), the silent
   * agents' Next shows the 51st on, and a live change (one more falls silent, first in the list's
   * order) refreshes the page shown, not the first: its rows move down by one. The rollouts and the
   * approval history page the same way (FleetPageGateTest).
   */
  @Test
  @Order(8)
  void theSilentAgentsPageAndALiveChangeKeepsThePageShown() throws Exception {
    signIn(FleetLab.READER_TOKEN);
    List<String> quiet = new ArrayList<>();
    for (int i = 0; i < 55; i++) {
      quiet.add(String.format("5f7c1d2e-0000-4000-8000-%012d", 100 + i));
    }
    heartbeats(quiet, Duration.ofSeconds(1));
    By pager = By.cssSelector("[data-testid=silent-pager]");
    By rows = By.cssSelector("[data-testid=silent-table] tr");
    waitUntilText(pager, "1–50 of 56 silent agents (page 1 of 2)");
    String fiftieth = browser.findElements(rows).get(50).getText();
    browser.findElement(By.cssSelector("[data-testid=silent-next]")).click();
    waitUntilText(pager, "51–56 of 56 silent agents (page 2 of 2)");
    String before = browser.findElements(rows).get(1).getText();
    assertThat(before).isNotEqualTo(fiftieth);

    heartbeats(List.of("00000000-0000-4000-8000-000000000001"), Duration.ofSeconds(1));
    waitUntilText(pager, "51–57 of 57 silent agents (page 2 of 2)");
    new WebDriverWait(browser, WAIT)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(d -> d.findElements(rows).get(1).getText().equals(fiftieth));
    assertThat(browser.findElement(By.cssSelector("[data-testid=silent]")).getText())
        .contains(before);
  }

  /**
   * A new Reboot of {@code vm}, approved through the API with {@code reason}, once the agent's
   * result completed the request (the approval history changes no more for it): the event's id.
   */
  private String approved(SimVm vm, String reason) throws Exception {
    String event = sim.addEvent(EventSpec.scheduled("Reboot", List.of(vm.name())).withNotice(7200));
    org.awaitility.Awaitility.await()
        .atMost(WAIT)
        .until(() -> found("/api/events/" + event) != null);
    String request =
        api(
                "POST",
                "/api/events/" + event + "/approve",
                "{\"reason\":\"" + reason + "\",\"vms\":[\"" + vm.vmId() + "\"]}")
            .path("requestId")
            .asText();
    org.awaitility.Awaitility.await()
        .atMost(WAIT)
        .until(
            () -> found("/api/approvals/" + request),
            r -> r != null && r.path("complete").asBoolean());
    return event;
  }

  /** One heartbeat of each of these VMs (named after their ids, zone 3), as {@link #heartbeat}. */
  private void heartbeats(List<String> vmIds, Duration every) throws Exception {
    try (var out =
        new org.apache.kafka.clients.producer.KafkaProducer<String, byte[]>(
            Map.of("bootstrap.servers", lab.broker().bootstrapServers()),
            new org.apache.kafka.common.serialization.StringSerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      var agents = new dev.sebridge.fleet.testing.AgentEnvelopes(java.time.Clock.systemUTC());
      for (String vmId : vmIds) {
        out.send(
            new org.apache.kafka.clients.producer.ProducerRecord<>(
                FleetLab.EVENTS,
                vmId,
                agents.heartbeat(
                    dev.sebridge.fleet.testing.AgentEnvelopes.vm(vmId, "q-" + vmId, "3", "web"),
                    every)));
      }
      out.flush();
    }
  }

  /**
   * One heartbeat of a VM of scale set {@code web}, written straight to the agents' topic (as any
   * process holding the agents' identity could), saying the next comes in {@code every}.
   */
  private void heartbeat(String vmId, String name, String zone, Duration every) throws Exception {
    try (var out =
        new org.apache.kafka.clients.producer.KafkaProducer<String, byte[]>(
            Map.of("bootstrap.servers", lab.broker().bootstrapServers()),
            new org.apache.kafka.common.serialization.StringSerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      out.send(
              new org.apache.kafka.clients.producer.ProducerRecord<>(
                  FleetLab.EVENTS,
                  vmId,
                  new dev.sebridge.fleet.testing.AgentEnvelopes(java.time.Clock.systemUTC())
                      .heartbeat(
                          dev.sebridge.fleet.testing.AgentEnvelopes.vm(vmId, name, zone, "web"),
                          every)))
          .get();
    }
  }

  private JsonNode api(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + FleetLab.APPROVER_TOKEN)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isBetween(200, 202);
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
  }

  /** A GET's answer, or null while the views do not have it (404). */
  private JsonNode found(String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + FleetLab.APPROVER_TOKEN)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() == 404) {
      return null;
    }
    assertThat(r.statusCode()).as("GET %s: %s", path, r.body()).isEqualTo(200);
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
  }

  private SimVm vm(int i) {
    return sim.vms().get(i);
  }

  private void signIn(String token) {
    browser.manage().deleteAllCookies();
    browser.get(base + "/ui/login");
    browser.findElement(By.id("token")).sendKeys(token);
    browser.findElement(By.id("sign-in")).click();
    waitFor(By.cssSelector("[data-testid=who]"));
  }

  private String csrf() {
    String headers = browser.findElement(By.tagName("body")).getAttribute("hx-headers");
    return headers.replaceAll(".*\"X-CSRF-Token\":\"([0-9a-f]+)\".*", "$1");
  }

  private int post(String path, String cookie, String csrf, String form) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Cookie", "sebridge_fleet=" + cookie)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    if (csrf != null) {
      b.header("X-CSRF-Token", csrf);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private WebElement waitFor(By by) {
    return new WebDriverWait(browser, WAIT)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(ExpectedConditions.visibilityOfElementLocated(by));
  }

  private void waitUntilText(By by, String text) {
    new WebDriverWait(browser, WAIT)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(d -> d.findElement(by).getText().contains(text));
  }

  private void tabTo(String id) {
    browser.findElement(By.tagName("h1")).click();
    for (int i = 0; i < 200; i++) {
      new Actions(browser).sendKeys(Keys.TAB).perform();
      // read in the page (one step): the fragments are swapped live, an element handle can go stale
      Object active =
          ((org.openqa.selenium.JavascriptExecutor) browser)
              .executeScript("return document.activeElement && document.activeElement.id;");
      if (id.equals(active)) {
        return;
      }
    }
    throw new AssertionError("the button cannot be reached with the keyboard");
  }

  private static void set(WebElement form, String testId, String value) {
    WebElement input = form.findElement(By.cssSelector("[data-testid=" + testId + "]"));
    input.clear();
    input.sendKeys(value);
  }

  private void shot(String name, By focus) throws Exception {
    WebElement e = browser.findElement(focus);
    ((org.openqa.selenium.JavascriptExecutor) browser)
        .executeScript("arguments[0].scrollIntoView({block: 'start'}); window.scrollBy(0, -8);", e);
    byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
    Path dir = Path.of("target", "screenshots");
    Files.createDirectories(dir);
    Files.write(dir.resolve(name + ".png"), png);
    String docs = System.getProperty("sebridge.screenshots");
    if (docs != null) {
      Path d = Path.of(docs);
      Files.createDirectories(d);
      Files.copy(
          dir.resolve(name + ".png"),
          d.resolve(name + ".png"),
          StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
