package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.fleet.testing.ServiceConfig;
import dev.sebridge.simulator.azure.CentralDeliveries;
import dev.sebridge.simulator.azure.MaintenanceEndpoint;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Approval without an agent as the service runs it (issue 28 item 3): Azure's central delivery
 * reports an event of a VM no agent runs on; an approver approves it through the API; the request
 * is audited and admitted by the fleet-wide ledger; the acknowledger acknowledges the scheduled
 * event through the Azure SDK's pipeline at a local Maintenance API; Azure starts it and says so;
 * the request's view has the VM's outcome and the event completes in the view. One broker, one
 * service, one local Azure for the class.
 */
class AcknowledgeServiceTest {
  static final String READER = "ack-test-reader-token";
  static final String APPROVER = "ack-test-approver-token";
  static final ObjectMapper JSON = new ObjectMapper();
  static EmbeddedKafkaBroker kafka;
  static MaintenanceEndpoint azure;
  static FleetService fleet;
  static KafkaProducer<String, byte[]> out;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start(@TempDir Path work) throws Exception {
    kafka = new EmbeddedKafkaBroker().start();
    kafka.createTopic("envelopes", 2);
    kafka.createTopic("commands", 2);
    azure = new MaintenanceEndpoint();
    Map<String, String> c =
        ServiceConfig.of(
            work,
            kafka.bootstrapServers(),
            2,
            List.of(
                ServiceConfig.token(READER, "viewer", "reader"),
                ServiceConfig.token(APPROVER, "alice", "approver")));
    c.put("fleet.central-events", "true");
    c.put("fleet.acknowledge.enabled", "true");
    c.put("fleet.acknowledge.endpoint", azure.endpoint().toString());
    fleet =
        FleetService.builder(Configuration.of(c))
            .acknowledge(
                dev.sebridge.fleet.testing.AzureAccess.credential(),
                dev.sebridge.fleet.testing.AzureAccess.httpClient())
            .build()
            .start();
    assertThat(fleet.awaitRunning(Duration.ofSeconds(60))).isTrue();
    out =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  @AfterAll
  static void stop() {
    out.close();
    fleet.close();
    azure.close();
    kafka.close();
  }

  @Test
  void anEventOfAVmWithoutAnAgentIsApprovedByAcknowledgementAndCompletesInTheView()
      throws Exception {
    azure.onStart(id -> {});
    double acceptedBefore = acknowledged("accepted");
    String eventId = UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
    String resourceId = MaintenanceEndpoint.vmEventId("db-legacy", eventId);
    azure.schedule(resourceId);
    // Acknowledged: Azure starts the event for every VM it lists, and its delivery says so, then
    // that it is over.
    azure.onStart(
        id -> {
          deliver(eventId, resourceId, "Started", "db-legacy");
          deliver(eventId, resourceId, "Completed", "db-legacy");
        });
    deliver(eventId, resourceId, "Scheduled", "db-legacy");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> get("/api/events/" + eventId).path("central").path("status").asText(""),
            "Scheduled"::equals);

    HttpResponse<String> approved = approve(eventId, "{\"reason\": \"patch the legacy db\"}");
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    JsonNode accepted = JSON.readTree(approved.body());
    assertThat(accepted.path("commands").size()).isZero();
    assertThat(accepted.path("acknowledge").path("resourceId").asText()).isEqualTo(resourceId);
    assertThat(accepted.path("acknowledge").path("vms").get(0).asText()).isEqualTo("db-legacy");
    String requestId = accepted.path("requestId").asText();

    JsonNode request =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> get("/api/approvals/" + requestId), r -> r.path("complete").asBoolean(false));
    JsonNode vm = request.path("vms").path("name:db-legacy");
    assertThat(vm.path("outcome").asText()).as(request.toString()).isEqualTo("accepted");
    assertThat(vm.path("reason").asText()).contains("Successfully Approved");
    assertThat(request.path("request").path("admitted").asBoolean()).isTrue();
    assertThat(azure.started()).contains(eventId.toLowerCase(Locale.ROOT));
    List<MaintenanceEndpoint.Call> calls = calls(eventId);
    assertThat(calls).hasSize(1);
    assertThat(calls.get(0).authorized()).isTrue();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/api/events/" + eventId), e -> !e.path("open").asBoolean(true));
    assertThat(acknowledged("accepted")).isEqualTo(acceptedBefore + 1);

    // Approved again: Azure says it is over, nothing more is sent.
    assertThat(approve(eventId, "{\"reason\": \"again\"}").statusCode()).isEqualTo(409);
    assertThat(calls(eventId)).hasSize(1);
  }

  /**
   * The rollout safety rules apply unchanged: while a rollout is active, an approval of an event
   * whose VMs the fleet cannot place in a group (known by name only: no agent) is refused by the
   * fleet-wide ledger, audited as refused, and nothing reaches Azure.
   */
  @Test
  void whileARolloutIsActiveAnEventOfVmsWithoutAnAgentIsRefusedAndNothingIsSent() throws Exception {
    String held = UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
    String heldResource = MaintenanceEndpoint.vmEventId("db-x", held);
    String other = UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
    String otherResource = MaintenanceEndpoint.vmEventId("db-y", other);
    azure.schedule(otherResource);
    deliver(held, heldResource, "Scheduled", "db-x");
    deliver(other, otherResource, "Scheduled", "db-y");
    for (String id : List.of(held, other)) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> get("/api/events/" + id).path("central").path("status").asText(""),
              "Scheduled"::equals);
    }
    HttpResponse<String> created =
        post(
            "/api/rollouts",
            JSON.writeValueAsString(
                Map.of("eventIds", List.of(held), "reason", "patch", "reportGrace", "30m")));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(202);
    String rolloutId = JSON.readTree(created.body()).path("rolloutId").asText();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/api/rollouts/" + rolloutId).path("state").asText(""), "running"::equals);

    HttpResponse<String> approved = approve(other, "{\"reason\": \"patch db-y\"}");
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    String requestId = JSON.readTree(approved.body()).path("requestId").asText();
    JsonNode request =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> get("/api/approvals/" + requestId), r -> r.path("complete").asBoolean());
    assertThat(request.path("request").path("refusal").asText())
        .as(request.toString())
        .contains("have not reported it");
    assertThat(request.path("vms").path("name:db-y").path("outcome").asText()).isEqualTo("refused");
    assertThat(calls(other)).isEmpty();
    // Ended before the class's other tests approve: the view says so.
    assertThat(post("/api/rollouts/" + rolloutId + "/abort", "{\"reason\": \"done\"}").statusCode())
        .isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/api/rollouts/" + rolloutId).path("state").asText(""), "aborted"::equals);
  }

  /**
   * Nothing is sent for a record on the orders topic that does not match its audited, admitted
   * request (written by anything but the request processor), and it does not change that request's
   * outcome; an order read after its lifetime is not sent; a record that is not an order is passed
   * over. None of them stops the acknowledger.
   */
  @Test
  void anOrderThatIsNotItsRequestsIsNeverSentAndARecordThatIsNoOrderIsPassedOver()
      throws Exception {
    azure.onStart(id -> {});
    double failedBefore = acknowledged("failed");
    String eventId = UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
    String resourceId = MaintenanceEndpoint.vmEventId("db-z", eventId);
    azure.schedule(resourceId);
    deliver(eventId, resourceId, "Scheduled", "db-z");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> get("/api/events/" + eventId).path("central").path("status").asText(""),
            "Scheduled"::equals);
    HttpResponse<String> approved = approve(eventId, "{\"reason\": \"patch db-z\"}");
    assertThat(approved.statusCode()).as(approved.body()).isEqualTo(202);
    String requestId = JSON.readTree(approved.body()).path("requestId").asText();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/api/approvals/" + requestId), r -> r.path("complete").asBoolean());

    // The same request id, another VM's scheduled event: not the request's order.
    String forged = UUID.randomUUID().toString();
    String forgedResource = MaintenanceEndpoint.vmEventId("payroll-1", forged);
    azure.schedule(forgedResource);
    Instant now = Instant.now();
    order(
        new AcknowledgeOrder(
            requestId,
            eventId,
            forgedResource,
            List.of("db-z"),
            "mallory",
            now,
            now.plusSeconds(300)),
        requestId);
    out.send(
            new ProducerRecord<>(
                "sebridge-fleet-acknowledgements",
                requestId,
                "{not json".getBytes(StandardCharsets.UTF_8)))
        .get(30, TimeUnit.SECONDS);
    // Last on the same partition: once it is answered, the two before it were read.
    Instant longAgo = now.minus(Duration.ofHours(1));
    order(
        new AcknowledgeOrder(
            "stale-req",
            eventId,
            resourceId,
            List.of("db-z"),
            "alice",
            longAgo,
            longAgo.plusSeconds(300)),
        requestId);
    await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged("failed") >= failedBefore + 1);
    assertThat(calls(forged)).isEmpty();
    assertThat(calls(eventId)).hasSize(1);
    assertThat(
            get("/api/approvals/" + requestId)
                .path("vms")
                .path("name:db-z")
                .path("outcome")
                .asText())
        .isEqualTo("accepted");
    assertThat(fleet.metrics().scrape()).contains("sebridge_fleet_acknowledger_up 1.0");
  }

  private static List<MaintenanceEndpoint.Call> calls(String eventId) {
    return azure.calls().stream()
        .filter(c -> c.eventIds().stream().anyMatch(eventId::equalsIgnoreCase))
        .toList();
  }

  /** {@code sebridge_fleet_acknowledgements_total{outcome}}, 0 if absent. */
  private static double acknowledged(String outcome) {
    String prefix = "sebridge_fleet_acknowledgements_total{outcome=\"" + outcome + "\"} ";
    return fleet
        .metrics()
        .scrape()
        .lines()
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()).trim()))
        .findFirst()
        .orElse(0);
  }

  /** An order written straight to the topic, under this key (its partition). */
  private static void order(AcknowledgeOrder o, String key) throws Exception {
    out.send(
            new ProducerRecord<>(
                "sebridge-fleet-acknowledgements", key, JsonSerde.JSON.writeValueAsBytes(o)))
        .get(30, TimeUnit.SECONDS);
  }

  /** One Event Grid delivery (CloudEvents 1.0), as the subscription writes it to the hub. */
  private static void deliver(String eventId, String resourceId, String status, String vm) {
    var e =
        CentralDeliveries.cloudEvent(
            UUID.randomUUID().toString(),
            resourceId,
            CentralDeliveries.properties(
                eventId,
                status,
                status.equals("Scheduled") ? "Mon, 19 Sep 2050 18:29:47 GMT" : "",
                vm));
    try {
      out.send(
              new ProducerRecord<>(
                  "sebridge-fleet-agentless-events", eventId, JSON.writeValueAsBytes(e)))
          .get(30, TimeUnit.SECONDS);
    } catch (Exception x) {
      throw new IllegalStateException(x);
    }
  }

  private static JsonNode get(String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port() + path))
                .header("Authorization", "Bearer " + READER)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 200 ? JSON.readTree(r.body()) : JSON.createObjectNode();
  }

  private static HttpResponse<String> approve(String eventId, String body) throws Exception {
    return post("/api/events/" + eventId + "/approve", body);
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port() + path))
            .header("Authorization", "Bearer " + APPROVER)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
