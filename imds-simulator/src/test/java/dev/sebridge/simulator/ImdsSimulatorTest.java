package dev.sebridge.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ImdsSimulatorTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();
  private ImdsSimulator sim;

  @AfterEach
  void stop() {
    if (sim != null) {
      sim.close();
    }
  }

  private HttpResponse<String> get(URI base, String path, boolean metadata) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).GET();
    if (metadata) {
      b.header("Metadata", "true");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(URI base, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create(base + "/metadata/scheduledevents?api-version=2020-07-01"))
            .header("Metadata", "true")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode doc(URI base) throws Exception {
    HttpResponse<String> r = get(base, "/metadata/scheduledevents?api-version=2020-07-01", true);
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  @Test
  void keepsOnlyTheNewestRequestHeadersSoALongRunDoesNotGrow() throws Exception {
    sim = ImdsSimulator.builder().build().start();
    int kept = ImdsSimulator.RECORDED_REQUESTS;
    for (int i = 0; i < kept + 200; i++) {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(
                  URI.create(sim.baseUri() + "/metadata/scheduledevents?api-version=2020-07-01"))
              .header("Metadata", "true")
              .header("X-Request-Number", Integer.toString(i));
      http.send(b.build(), HttpResponse.BodyHandlers.discarding());
    }
    List<Map<String, List<String>>> headers = sim.requestHeaders();
    assertThat(headers).hasSize(kept);
    assertThat(headers.get(0).get("x-request-number")).containsExactly("200");
    assertThat(headers.get(kept - 1).get("x-request-number")).containsExactly("1199");
  }

  @Test
  void refusesRequestsImdsWouldRefuse() throws Exception {
    sim = ImdsSimulator.builder().build().start();
    URI base = sim.baseUri();
    assertThat(get(base, "/metadata/scheduledevents?api-version=2020-07-01", false).statusCode())
        .isEqualTo(400);
    HttpResponse<String> noVersion = get(base, "/metadata/scheduledevents", true);
    assertThat(noVersion.statusCode()).isEqualTo(400);
    assertThat(noVersion.body()).contains("newest-versions").contains("2020-07-01");
    assertThat(get(base, "/metadata/scheduledevents?api-version=2031-01-01", true).statusCode())
        .isEqualTo(400);
    HttpResponse<String> forwarded =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(base + "/metadata/scheduledevents?api-version=2020-07-01"))
                .header("Metadata", "true")
                .header("X-Forwarded-For", "10.0.0.1")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(forwarded.statusCode()).isEqualTo(400);
    assertThat(post(base, "{\"StartRequests\": [{}]}").statusCode()).isEqualTo(400);
    assertThat(post(base, "not json").statusCode()).isEqualTo(400);
  }

  @Test
  void runsTheDocumentedLifecycleWithIncreasingIncarnations() throws Exception {
    sim = ImdsSimulator.builder().timeScale(600).build().start();
    URI base = sim.baseUri();
    JsonNode empty = doc(base);
    assertThat(empty.get("DocumentIncarnation").asLong()).isEqualTo(1);
    assertThat(empty.get("Events")).isEmpty();

    String id =
        sim.addEvent(
            EventSpec.scheduled("Freeze", List.of("sim-vm-0", "sim-vm-1"))
                .withNotice(600)
                .withStartedFor(300)
                .withDuration(5));
    JsonNode scheduled = doc(base);
    assertThat(scheduled.get("DocumentIncarnation").asLong()).isEqualTo(2);
    JsonNode ev = scheduled.get("Events").get(0);
    assertThat(ev.get("EventId").asText()).isEqualTo(id);
    assertThat(ev.get("EventStatus").asText()).isEqualTo("Scheduled");
    assertThat(ev.get("NotBefore").asText()).endsWith("GMT");
    assertThat(ev.get("DurationInSeconds").asInt()).isEqualTo(5);
    assertThat(ev.get("ResourceType").asText()).isEqualTo("VirtualMachine");

    // 600 simulated seconds at scale 600 = 1 real second to NotBefore.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> sim.eventStatus(id).orElse("").equals("Started"));
    JsonNode started = doc(base);
    assertThat(started.get("DocumentIncarnation").asLong()).isEqualTo(3);
    assertThat(started.get("Events").get(0).get("NotBefore").asText()).isEmpty();
    await().atMost(Duration.ofSeconds(5)).until(sim::isIdle);
    JsonNode done = doc(base);
    assertThat(done.get("DocumentIncarnation").asLong()).isEqualTo(4);
    assertThat(done.get("Events")).isEmpty();
  }

  @Test
  void oneApprovalReleasesTheEventForEveryVmOfTheGroup() throws Exception {
    sim =
        ImdsSimulator.builder()
            .vm(SimVm.of("vm-a", ImdsSimulator.defaultVmId(1)))
            .vm(SimVm.of("vm-b", ImdsSimulator.defaultVmId(2)))
            .build()
            .start();
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of("vm-a", "vm-b")));
    assertThat(doc(sim.baseUri("vm-b")).get("Events").get(0).get("EventId").asText()).isEqualTo(id);
    HttpResponse<String> r =
        post(
            sim.baseUri("vm-a"),
            "{\"StartRequests\": [{\"EventId\": \"" + id.toLowerCase() + "\"}]}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(sim.startRequests())
        .singleElement()
        .satisfies(s -> assertThat(s.vm()).isEqualTo("vm-a"));
    assertThat(doc(sim.baseUri("vm-b")).get("Events").get(0).get("EventStatus").asText())
        .isEqualTo("Started");
    // Approving twice (another VM) is still a 200.
    assertThat(
            post(sim.baseUri("vm-b"), "{\"StartRequests\": [{\"EventId\": \"" + id + "\"}]}")
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void hardwareFailureAppearsStartedAndCancellationRemovesAScheduledEvent() throws Exception {
    sim = ImdsSimulator.builder().build().start();
    String hw =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of("sim-vm-0")).asHardwareFailure());
    assertThat(sim.eventStatus(hw)).contains("Started");
    String c = sim.addEvent(EventSpec.scheduled("Redeploy", List.of("sim-vm-0")));
    sim.cancelEvent(c);
    assertThat(sim.eventStatus(c)).isEmpty();
    assertThat(doc(sim.baseUri()).get("Events")).hasSize(1);
  }

  @Test
  void injectsFaultsThenRecovers() throws Exception {
    sim = ImdsSimulator.builder().build().start();
    URI base = sim.baseUri();
    sim.injectFault(new Fault.Status(500, null), 1);
    sim.injectFault(new Fault.Status(429, null), 1);
    sim.injectFault(new Fault.Garbage(null), 1);
    sim.injectFault(new Fault.NotADocument(null), 1);
    String p = "/metadata/scheduledevents?api-version=2020-07-01";
    assertThat(get(base, p, true).statusCode()).isEqualTo(500);
    assertThat(get(base, p, true).statusCode()).isEqualTo(429);
    HttpResponse<String> garbage = get(base, p, true);
    assertThat(garbage.statusCode()).isEqualTo(200);
    assertThat(garbage.body()).doesNotEndWith("}");
    assertThat(get(base, p, true).body()).doesNotContain("DocumentIncarnation");
    assertThat(doc(base).get("DocumentIncarnation").asLong()).isEqualTo(1);
  }

  @Test
  void oldApiVersionsHideNewerFieldsAndTypes() throws Exception {
    sim = ImdsSimulator.builder().build().start();
    sim.addEvent(EventSpec.scheduled("Terminate", List.of("sim-vm-0")));
    sim.addEvent(EventSpec.scheduled("Freeze", List.of("sim-vm-0")));
    HttpResponse<String> r =
        get(sim.baseUri(), "/metadata/scheduledevents?api-version=2017-11-01", true);
    JsonNode events = JSON.readTree(r.body()).get("Events");
    assertThat(events).hasSize(1);
    assertThat(events.get(0).has("DurationInSeconds")).isFalse();
    assertThat(events.get(0).has("EventSource")).isFalse();
  }

  @Test
  void servesComputeMetadataPerVm() throws Exception {
    sim =
        ImdsSimulator.builder()
            .vm(SimVm.of("vm-a", "id-a"))
            .vm(SimVm.of("vm-b", "id-b"))
            .build()
            .start();
    HttpResponse<String> r =
        get(sim.baseUri("vm-b"), "/metadata/instance/compute?api-version=2021-02-01", true);
    JsonNode c = JSON.readTree(r.body());
    assertThat(c.get("vmId").asText()).isEqualTo("id-b");
    assertThat(c.get("resourceId").asText()).endsWith("/virtualMachines/vm-b");
    assertThat(
            get(sim.baseUri(), "/metadata/instance/compute?api-version=2021-02-01", false)
                .statusCode())
        .isEqualTo(400);
  }

  @Test
  void controlApiCreatesEventsAndFaults() throws Exception {
    sim = ImdsSimulator.builder().build().start();
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(URI.create(sim.baseUri() + "/control/events"))
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"eventId\":\"E-1\",\"eventType\":\"Reboot\",\"resources\":[\"sim-vm-0\"]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(sim.eventStatus("e-1")).contains("Scheduled");
    HttpResponse<String> fault =
        http.send(
            HttpRequest.newBuilder(URI.create(sim.baseUri() + "/control/faults?times=2"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":\"status\",\"status\":410}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(fault.statusCode()).isEqualTo(200);
    assertThat(sim.pendingFaults()).isEqualTo(2);
    HttpResponse<String> state = get(sim.baseUri(), "/control/state", false);
    assertThat(JSON.readTree(state.body()).at("/document/Events/0/EventId").asText())
        .isEqualTo("E-1");
  }

  @Test
  void playsTheBuiltInDemoScenario() {
    Scenario demo = Scenario.builtIn("demo");
    assertThat(demo.vms()).hasSize(2);
    assertThat(demo.steps())
        .extracting(Scenario.Step::action)
        .contains("schedule", "cancel", "hardware-failure");
    sim = ImdsSimulator.builder().vms(demo.vms()).timeScale(6000).build().start();
    demo.play(sim);
    await().atMost(Duration.ofSeconds(10)).until(sim::isIdle);
    assertThat(sim.documentIncarnation()).isGreaterThan(5);
  }

  @Test
  void parsesDurations() {
    assertThat(Scenario.seconds("90")).isEqualTo(90);
    assertThat(Scenario.seconds("1.5m")).isEqualTo(90);
    assertThat(Scenario.seconds("250ms")).isEqualTo(0.25);
    assertThat(Scenario.seconds("2h")).isEqualTo(7200);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Scenario.seconds("soon"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Map.of()).isEmpty();
  }
}
