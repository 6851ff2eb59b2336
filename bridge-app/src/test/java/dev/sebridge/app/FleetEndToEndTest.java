package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.app.fleet.FleetLab;
import dev.sebridge.fleet.FleetService;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.simulator.StartRequestRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The fleet service with real agents: twelve agents in this JVM against the IMDS simulator and one
 * embedded broker, the fleet service reading their envelopes and sending their commands. One fleet
 * for the whole class; each test plays its own events.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class FleetEndToEndTest {
  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How late a transition may reach the view here: long enough that a busy 2-CPU machine running
   * other test classes beside this one never trips it (a 2 s bound failed a clean CI run at 2.085
   * s), short enough that a transition waiting for anything periodic (a retention scan every
   * minute, the index's read every 10 minutes) fails. The view delay's target (p99 1 s) is measured
   * where it can be, by benchmarks/run-fleet.sh.
   */
  static final Duration VIEW_LATENCY = Duration.ofSeconds(10);

  Path work;
  FleetLab lab;
  FleetService fleet;
  ImdsSimulator sim;
  final HttpClient http = HttpClient.newHttpClient();
  final Map<String, Instant> firstSeen = new ConcurrentHashMap<>();
  ScheduledExecutorService watcher;

  @BeforeAll
  void startFleet() throws Exception {
    work = Files.createTempDirectory("fleet-e2e-");
    lab = FleetLab.start(work, new FleetLab.Options(12, 3, 1, Duration.ofSeconds(3)));
    sim = lab.simulator();
    // Azure's central deliveries too: nothing in the other tests writes them.
    fleet = lab.startFleet("a", Map.of("fleet.central-events", "true"));
    lab.startAgents(Duration.ofMillis(250), Duration.ofSeconds(5));
    // What the view shows, and since when: every (event, VM, status) the first time it is seen.
    watcher = Executors.newSingleThreadScheduledExecutor();
    watcher.scheduleWithFixedDelay(this::look, 0, 10, TimeUnit.MILLISECONDS);
  }

  @AfterAll
  void stop() {
    watcher.shutdownNow();
    lab.close();
  }

  private void look() {
    try {
      Instant now = Instant.now();
      for (EventView e : fleet.views().events()) {
        for (VmEventState v : e.vms().values()) {
          firstSeen.putIfAbsent(
              e.eventId().toLowerCase(Locale.ROOT) + "|" + v.vmId() + "|" + v.status(), now);
        }
      }
    } catch (RuntimeException notReady) {
      // the stores are briefly unavailable during a rebalance
    }
  }

  List<String> names(int from, int to) {
    return sim.vms().subList(from, to).stream().map(SimVm::name).toList();
  }

  @Test
  void everyTransitionOfEveryVmIsInTheViewSoonAfterBeingWritten() throws Exception {
    String freeze =
        sim.addEvent(
            EventSpec.scheduled("Freeze", names(0, 3))
                .withNotice(2)
                .withStartedFor(2)
                .withDuration(9));
    String reboot = sim.addEvent(EventSpec.scheduled("Reboot", names(3, 12)).withNotice(900));
    await().atMost(Duration.ofSeconds(30)).until(() -> sim.eventStatus(freeze).isEmpty());
    sim.cancelEvent(reboot);

    // every transition envelope of these two events, with the time the agent wrote it
    Set<String> ours = Set.of(freeze.toLowerCase(Locale.ROOT), reboot.toLowerCase(Locale.ROOT));
    List<ConsumerRecord<String, byte[]>> transitions = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              transitions.clear();
              for (var r : readAll(FleetLab.EVENTS)) {
                JsonNode env = JSON.readTree(r.value());
                if (env.path("type").asText().startsWith("dev.sebridge.scheduledevent.")
                    && env.path("data").path("affectsThisVm").asBoolean()
                    && ours.contains(
                        env.path("data")
                            .path("event")
                            .path("EventId")
                            .asText()
                            .toLowerCase(Locale.ROOT))) {
                  transitions.add(r);
                }
              }
              // 3 VMs x scheduled/started/completed, 9 VMs x scheduled/canceled
              return transitions.size() >= 3 * 3 + 9 * 2;
            });
    List<String> late = new ArrayList<>();
    List<Long> latencies = new ArrayList<>();
    for (var r : transitions) {
      JsonNode d = JSON.readTree(r.value()).path("data");
      // a removal the agent could not watch live is shown as inferred (with its guess)
      String status =
          d.path("inferred").asBoolean()
              ? "inferred"
              : d.path("transition").asText().toLowerCase(Locale.ROOT);
      String key =
          d.path("event").path("EventId").asText().toLowerCase(Locale.ROOT)
              + "|"
              + r.key()
              + "|"
              + status;
      await()
          .alias("the view shows " + key + " (seen: " + firstSeen.keySet() + ")")
          .atMost(VIEW_LATENCY.plusSeconds(5))
          .until(() -> firstSeen.containsKey(key));
      long ms =
          Duration.between(Instant.ofEpochMilli(r.timestamp()), firstSeen.get(key)).toMillis();
      latencies.add(ms);
      if (ms > VIEW_LATENCY.toMillis()) {
        late.add(key + " after " + ms + " ms");
      }
    }
    assertThat(latencies).hasSize(27);
    assertThat(late)
        .as("transitions shown later than %s (all: %s ms)", VIEW_LATENCY, latencies)
        .isEmpty();
    EventView f = fleet.views().event(freeze).orElseThrow();
    assertThat(f.counts()).isEqualTo(Map.of("completed", 3));
    assertThat(f.open()).isFalse();
    EventView r = fleet.views().event(reboot).orElseThrow();
    assertThat(r.vms().values())
        .hasSize(9)
        .allMatch(v -> v.status().equals("canceled") || "canceled".equals(v.guess()));
    assertThat(r.open()).isFalse();
  }

  @Test
  void anApprovalReachesExactlyTheChosenVmsOnceAndTheirResultsAppearUnderTheRequest()
      throws Exception {
    List<SimVm> vms = sim.vms();
    String reboot =
        sim.addEvent(
            EventSpec.scheduled("Reboot", vms.stream().map(SimVm::name).toList())
                .withNotice(900)
                .withStartedFor(2));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                fleet.views().event(reboot).map(e -> e.counts().get("scheduled")).orElse(0)
                    == vms.size());
    List<SimVm> chosen = List.of(vms.get(0), vms.get(4), vms.get(8), vms.get(11));
    double acceptedBefore = approvalResults("accepted");
    HttpResponse<String> resp =
        approve(reboot, chosen.stream().map(SimVm::vmId).toList(), FleetLab.APPROVER_TOKEN);
    assertThat(resp.statusCode()).as(resp.body()).isEqualTo(202);
    String requestId = JSON.readTree(resp.body()).path("requestId").asText();

    JsonNode request =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> get("/api/approvals/" + requestId, FleetLab.READER_TOKEN),
                r -> r.path("complete").asBoolean());
    assertThat(request.path("outcomes").path("accepted").asInt()).isEqualTo(4);
    assertThat(request.path("request").path("requestedBy").asText()).isEqualTo("sre-oncall@demo");
    // The metric counts them too, tallied as the request's view changed (ViewTallies).
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> approvalResults("accepted") >= acceptedBefore + 4);

    Map<String, List<StartRequestRecord>> posts =
        sim.startRequests().stream()
            .filter(p -> p.eventIds().stream().anyMatch(reboot::equalsIgnoreCase))
            .collect(Collectors.groupingBy(StartRequestRecord::vm));
    assertThat(posts.keySet())
        .containsExactlyInAnyOrderElementsOf(chosen.stream().map(SimVm::name).toList());
    posts.values().forEach(list -> assertThat(list).hasSize(1));

    // every VM then runs through the event (an approval releases it for all of them)
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                fleet.views().event(reboot).map(e -> e.counts().get("completed")).orElse(0)
                    == vms.size());
  }

  @Test
  void withoutATokenNothingAndAReaderMayNotApproveAndNoCommandIsProduced() throws Exception {
    String freeze =
        sim.addEvent(EventSpec.scheduled("Freeze", names(5, 7)).withNotice(900).withDuration(5));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fleet.views().event(freeze).map(e -> e.vms().size()).orElse(0) == 2);

    HttpResponse<String> anonymous =
        http.send(
            HttpRequest.newBuilder(URI.create(base() + "/api/events")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
    HttpResponse<String> forged =
        http.send(
            HttpRequest.newBuilder(URI.create(base() + "/metrics"))
                .header("Authorization", "Bearer not-a-token-of-ours")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(forged.statusCode()).isEqualTo(401);

    // a reader reads
    JsonNode events = get("/api/events?open=true&type=Freeze", FleetLab.READER_TOKEN);
    assertThat(events.path("events").findValuesAsText("eventId")).contains(freeze);
    Set<String> commandsBefore = commandIds();
    HttpResponse<String> reader = approve(freeze, List.of(), FleetLab.READER_TOKEN);
    assertThat(reader.statusCode()).isEqualTo(403);

    // An approver's request after it: once its two commands are there, nothing else is.
    HttpResponse<String> approver = approve(freeze, List.of(), FleetLab.APPROVER_TOKEN);
    assertThat(approver.statusCode()).isEqualTo(202);
    String requestId = JSON.readTree(approver.body()).path("requestId").asText();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> commandIds().size() >= commandsBefore.size() + 2);
    Set<String> added = new java.util.TreeSet<>(commandIds());
    added.removeAll(commandsBefore);
    assertThat(added).hasSize(2).allMatch(id -> id.startsWith("fleet:" + requestId + ":"));
    for (var r : readAll("sebridge-fleet-approvals")) {
      assertThat(JSON.readTree(r.value()).path("requestedBy").asText())
          .isNotEqualTo("dashboard@demo");
    }
  }

  @Test
  void theCliShowsTheFleetAndApprovesThroughTheService() throws Exception {
    String redeploy =
        sim.addEvent(
            EventSpec.scheduled("Redeploy", names(9, 11))
                .withNotice(900)
                .withSource("User")
                .withStartedFor(1));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fleet.views().event(redeploy).map(e -> e.vms().size()).orElse(0) == 2);
    Path token = work.resolve("approver.token");
    Files.writeString(token, FleetLab.APPROVER_TOKEN);
    String[] client = {"--url", base(), "--token-file", token.toString()};

    var events =
        run(
            "fleet",
            "events",
            "--open",
            "--type",
            "Redeploy",
            client[0],
            client[1],
            client[2],
            client[3]);
    assertThat(events.code()).as(events.err()).isEqualTo(0);
    assertThat(events.out())
        .contains("EVENT")
        .contains(redeploy)
        .contains("Redeploy")
        .contains("scheduled 2");

    // Campaigns, paged by the CLI and narrowed by the service.
    var campaigns =
        run(
            "fleet",
            "campaigns",
            "--type",
            "redeploy",
            "--source",
            "USER",
            client[0],
            client[1],
            client[2],
            client[3]);
    assertThat(campaigns.code()).as(campaigns.err()).isEqualTo(0);
    assertThat(campaigns.out()).contains("CAMPAIGN").contains("Redeploy").contains("User");
    var none =
        run(
            "fleet",
            "campaigns",
            "--type",
            "Redeploy",
            "--text",
            "no such description",
            client[0],
            client[1],
            client[2],
            client[3]);
    assertThat(none.code()).as(none.err()).isEqualTo(0);
    assertThat(none.out()).contains("no open maintenance campaigns");

    String vmId = sim.vm(names(9, 10).get(0)).vmId();
    var approve =
        run(
            "fleet",
            "approve",
            redeploy,
            "--vm",
            vmId,
            "--reason",
            "cli test",
            "--wait",
            "30",
            client[0],
            client[1],
            client[2],
            client[3]);
    assertThat(approve.code()).as(approve.out() + approve.err()).isEqualTo(0);
    assertThat(approve.out())
        .contains("1 command(s) for event " + redeploy)
        .contains(vmId)
        .contains("accepted");

    var noToken = run("fleet", "events", "--url", base());
    assertThat(noToken.code()).isEqualTo(2);
    assertThat(noToken.err()).contains("--token-file");
  }

  @Test
  void aRolloutHoldsAnEventWhileAVmItListsReportsNothingThenHaltsNamingIt() throws Exception {
    // web VMs 6 and 7 have agents; the third VM the event lists has none running (stopped, or
    // never installed): IMDS would release it with the others, and the fleet cannot count it.
    List<String> listed = new ArrayList<>(names(6, 8));
    listed.add("no-agent-vm-0");
    String reboot = sim.addEvent(EventSpec.scheduled("Reboot", listed).withNotice(900));
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> fleet.views().event(reboot).map(e -> e.vms().size()).orElse(0) == 2);
      Map<String, Object> body = new HashMap<>();
      body.put("eventIds", List.of(reboot));
      body.put("maxUnavailable", "100%");
      body.put("reportGrace", "3s");
      body.put("reason", "fleet end-to-end test: a VM without an agent");
      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(URI.create(base() + "/api/rollouts"))
                  .header("Authorization", "Bearer " + FleetLab.APPROVER_TOKEN)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(202);
      String id = JSON.readTree(created.body()).path("rolloutId").asText();

      JsonNode halted =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> get("/api/rollouts/" + id, FleetLab.READER_TOKEN),
                  r -> r.path("state").asText().equals("halted"));
      assertThat(halted.path("halt").path("reason").asText())
          .contains("no-agent-vm-0")
          .contains("have not reported it");
      assertThat(halted.path("waves")).isEmpty();
      assertThat(sim.startRequests())
          .as("nothing released: IMDS's record of StartRequests for the event")
          .noneMatch(p -> p.eventIds().stream().anyMatch(reboot::equalsIgnoreCase));
      HttpResponse<String> manual = approve(reboot, List.of(), FleetLab.APPROVER_TOKEN);
      assertThat(manual.statusCode()).as("the rollout holds it").isEqualTo(409);
    } finally {
      sim.cancelEvent(reboot);
    }
  }

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    var out = new java.io.StringWriter();
    var err = new java.io.StringWriter();
    int code = Main.execute(new java.io.PrintWriter(out), new java.io.PrintWriter(err), args);
    return new Run(code, out.toString(), err.toString());
  }

  String base() {
    return "http://127.0.0.1:" + fleet.port();
  }

  @Test
  void azuresCentralDeliveryJoinsTheAgentsViewAndShowsEventsOfVmsWithoutAnAgent() throws Exception {
    // An event the agents report first, then Azure delivers.
    SimVm vm = sim.vms().get(2);
    String reboot = sim.addEvent(EventSpec.scheduled("Reboot", List.of(vm.name())).withNotice(900));
    await().atMost(Duration.ofSeconds(10)).until(() -> fleet.views().event(reboot).isPresent());
    deliverCentral("d-1", reboot, "Scheduled", vm.name());
    JsonNode both =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> get("/api/events/" + reboot, FleetLab.READER_TOKEN),
                e -> e.path("central").path("status").asText().equals("Scheduled"));
    assertThat(both.path("firstSeenBy").asText()).isEqualTo("agent");
    assertThat(both.path("vms").findValuesAsText("vmId")).containsExactly(vm.vmId());
    assertThat(fleet.metrics().scrape()).contains("sebridge_fleet_first_seen_total{by=\"agent\"}");

    // An event of a VM no agent runs on: only Azure reports it, open until Azure says it is over.
    String legacy = java.util.UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
    deliverCentral("d-2", legacy, "Scheduled", "db-legacy");
    deliverCentral("d-2", legacy, "Scheduled", "db-legacy"); // delivered twice
    JsonNode alone =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> get("/api/events/" + legacy, FleetLab.READER_TOKEN),
                e -> e.path("open").asBoolean());
    assertThat(alone.path("firstSeenBy").asText()).isEqualTo("azure");
    assertThat(alone.path("vms").size()).isZero();
    assertThat(alone.path("unreported").get(0).asText()).isEqualTo("db-legacy");
    deliverCentral("d-3", legacy, "Completed", "db-legacy");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> get("/api/events/" + legacy, FleetLab.READER_TOKEN),
            e ->
                !e.path("open").asBoolean()
                    && e.path("central").path("status").asText().equals("Completed"));
  }

  /** One Event Grid delivery (CloudEvents 1.0), as the subscription writes it to the hub. */
  private void deliverCentral(String deliveryId, String eventId, String status, String vmName)
      throws Exception {
    String id =
        "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"
            + vmName
            + "/providers/microsoft.maintenance/scheduledevents/"
            + eventId;
    var e =
        dev.sebridge.simulator.azure.CentralDeliveries.cloudEvent(
            deliveryId,
            id,
            dev.sebridge.simulator.azure.CentralDeliveries.properties(eventId, status, "", vmName));
    try (var producer =
        new org.apache.kafka.clients.producer.KafkaProducer<String, byte[]>(
            Map.<String, Object>of("bootstrap.servers", lab.broker().bootstrapServers()),
            new org.apache.kafka.common.serialization.StringSerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      producer
          .send(
              new org.apache.kafka.clients.producer.ProducerRecord<>(
                  "sebridge-fleet-agentless-events", deliveryId, JSON.writeValueAsBytes(e)))
          .get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * {@code sebridge_fleet_approval_results{outcome}} as this instance's scrape gives it, 0 if
   * absent.
   */
  private double approvalResults(String outcome) {
    String prefix = "sebridge_fleet_approval_results{outcome=\"" + outcome + "\"} ";
    for (String line : fleet.metrics().scrape().split("\n")) {
      if (line.startsWith(prefix)) {
        return Double.parseDouble(line.substring(prefix.length()));
      }
    }
    return 0;
  }

  HttpResponse<String> approve(String eventId, List<String> vmIds, String token) throws Exception {
    Map<String, Object> body = new HashMap<>();
    if (!vmIds.isEmpty()) {
      body.put("vms", vmIds);
    }
    body.put("reason", "fleet end-to-end test");
    return http.send(
        HttpRequest.newBuilder(URI.create(base() + "/api/events/" + eventId + "/approve"))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  JsonNode get(String path, String token) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base() + path))
                .header("Authorization", "Bearer " + token)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 200 ? JSON.readTree(r.body()) : JSON.createObjectNode();
  }

  /** Every record of a topic so far (uncommitted ones included: nothing hides). */
  List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", lab.broker().bootstrapServers()),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      return out;
    }
  }

  Set<String> commandIds() throws Exception {
    Set<String> ids = new java.util.TreeSet<>();
    for (var r : readAll(FleetLab.COMMANDS)) {
      ids.add(JSON.readTree(r.value()).path("id").asText());
    }
    return ids;
  }
}
