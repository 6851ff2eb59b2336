package dev.sebridge.fleet.agentless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.inventory.ResourceGraphInventory;
import dev.sebridge.fleet.model.VmEventUpdate;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.simulator.azure.ResourceGraphEndpoint;
import dev.sebridge.testing.MutableClock;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reconciliation read: Resource Graph's {@code maintenanceresources} through the Azure SDK
 * against a local HTTPS endpoint of its wire format, each scheduled event sent to its event's
 * partition as Azure's report of it now; what cannot be read is counted, never sent.
 */
class CentralReconcilerTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  static final ObjectMapper JSON = new ObjectMapper();
  static ResourceGraphEndpoint graph;
  static final TokenCredential CREDENTIAL = dev.sebridge.fleet.testing.AzureAccess.credential();
  static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    graph = new ResourceGraphEndpoint();
    http = dev.sebridge.fleet.testing.AzureAccess.httpClient();
  }

  @AfterAll
  static void stop() {
    graph.close();
  }

  static ObjectNode row(String eventId, String vm, String status) {
    ObjectNode r = JSON.createObjectNode();
    r.put(
        "id",
        "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"
            + vm
            + "/providers/microsoft.maintenance/scheduledevents/"
            + eventId);
    r.put("name", eventId);
    r.put("type", "microsoft.maintenance/scheduledevents");
    r.put("location", "westeurope");
    r.set(
        "properties",
        dev.sebridge.simulator.azure.CentralDeliveries.properties(
            eventId,
            status,
            status.equals("Scheduled") ? "Thu, 26 Nov 2026 10:15:00 GMT" : "",
            vm));
    return r;
  }

  @Test
  void everyScheduledEventAzureKeepsGoesToItsEventsPartitionAndWhatCannotBeReadIsCounted() {
    graph.clear();
    graph.pageSize(2); // three pages
    graph.addMaintenance(row("AAAA-1", "db-1", "Started"));
    graph.addMaintenance(row("BBBB-2", "db-2", "Scheduled"));
    graph.addMaintenance(row("CCCC-3", "db-3", "Paused")); // no status Azure documents
    graph.addMaintenance(row("DDDD-4", "db-4", "Completed"));
    graph.addMaintenance(row("EEEE-5", "db-5", "Canceled"));
    ResourceGraphInventory rg =
        new ResourceGraphInventory(
            graph.endpoint(),
            CREDENTIAL,
            http,
            new ResourceGraphInventory.Scope(List.of("sub-a"), List.of(), null));
    MockProducer<String, VmEventUpdate> producer =
        new MockProducer<>(
            true, null, new StringSerializer(), new JsonSerde<>(VmEventUpdate.class).serializer());
    CentralReconciler r =
        new CentralReconciler(
            rg::maintenanceEvents,
            producer,
            "fleet-by-event",
            new MutableClock(T0),
            new CentralEventParser(JSON),
            row -> CentralReconciler.news(row, null));

    CentralReconciler.Result result = r.reconcile();

    assertThat(result.listed()).isEqualTo(5);
    // what the views do not have and is over is not news: never brought back
    assertThat(result.sent()).isEqualTo(2);
    assertThat(result.malformed()).isEqualTo(1);
    assertThat(result.firstMalformed()).isEqualTo("EventStatus Paused is not known");
    List<ProducerRecord<String, VmEventUpdate>> sent = producer.history();
    assertThat(sent).extracting(ProducerRecord::topic).containsOnly("fleet-by-event");
    assertThat(sent).extracting(ProducerRecord::key).containsExactly("aaaa-1", "bbbb-2");
    VmEventUpdate first = sent.get(0).value();
    assertThat(first.transition()).isEqualTo(VmEventUpdate.RECONCILED);
    assertThat(first.time()).isEqualTo(T0);
    assertThat(first.central().status()).isEqualTo(AzureEventStatus.STARTED);
    assertThat(first.central().resources()).containsExactly("db-1");
    assertThat(graph.calls())
        .extracting(ResourceGraphEndpoint.Call::query)
        .allMatch(q -> q.startsWith("maintenanceresources"));
  }

  @Test
  void onlyWhatTheViewsDoNotSayIsSent() {
    AzureScheduledEvent started =
        ((Delivery.Event) new CentralEventParser(JSON).row(row("A-1", "db-1", "Started"), T0))
            .event();
    AzureScheduledEvent completed =
        ((Delivery.Event) new CentralEventParser(JSON).row(row("A-1", "db-1", "Completed"), T0))
            .event();
    java.util.function.Function<AzureEventStatus, dev.sebridge.fleet.model.CentralReport> held =
        s -> new dev.sebridge.fleet.model.CentralReport(s, "x", List.of("db-1"), T0, T0);
    assertThat(CentralReconciler.news(started, null)).as("a new event").isTrue();
    assertThat(CentralReconciler.news(completed, null)).as("over, never seen").isFalse();
    assertThat(CentralReconciler.news(started, held.apply(AzureEventStatus.SCHEDULED))).isTrue();
    assertThat(CentralReconciler.news(started, held.apply(AzureEventStatus.STARTED))).isFalse();
    assertThat(CentralReconciler.news(completed, held.apply(AzureEventStatus.STARTED))).isTrue();
    assertThat(CentralReconciler.news(completed, held.apply(AzureEventStatus.CANCELED))).isFalse();
  }

  @Test
  void aReadThatFailsSendsNothing() {
    graph.clear();
    graph.pageSize(1);
    graph.addMaintenance(row("AAAA-1", "db-1", "Started"));
    graph.addMaintenance(row("BBBB-2", "db-2", "Started"));
    graph.fault(ResourceGraphEndpoint.Fault.TRUNCATED_WITHOUT_TOKEN, 1);
    MockProducer<String, VmEventUpdate> producer =
        new MockProducer<>(
            true, null, new StringSerializer(), new JsonSerde<>(VmEventUpdate.class).serializer());
    CentralReconciler r =
        new CentralReconciler(
            new ResourceGraphInventory(
                    graph.endpoint(),
                    CREDENTIAL,
                    http,
                    new ResourceGraphInventory.Scope(List.of("sub-a"), List.of(), null))
                ::maintenanceEvents,
            producer,
            "fleet-by-event",
            new MutableClock(T0),
            new CentralEventParser(JSON),
            row -> CentralReconciler.news(row, null));
    assertThatThrownBy(r::reconcile).hasMessageContaining("truncated");
    assertThat(producer.history()).isEmpty();
    graph.fault(null, 0);
  }
}
