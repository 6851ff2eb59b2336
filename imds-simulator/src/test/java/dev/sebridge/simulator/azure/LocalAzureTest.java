package dev.sebridge.simulator.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One event book drives IMDS and the local Azure: Event Grid tells of an event that lists a VM with
 * central delivery as the book moves it, Resource Graph lists every VM, and an acknowledgement
 * through the Maintenance API starts the event for every VM it lists, as an approval through IMDS
 * does.
 */
class LocalAzureTest {
  static final List<SimVm> VMS =
      List.of(
          SimVm.of("agent-1", "aaaaaaaa-0000-4000-8000-000000000001"),
          SimVm.of("db-legacy", "aaaaaaaa-0000-4000-8000-000000000002"));

  @Test
  void anAcknowledgementStartsTheEventAndEventGridTellsOfEachStep() throws Exception {
    try (ImdsSimulator sim = ImdsSimulator.builder().vms(VMS).build().start();
        LocalAzure azure = new LocalAzure(sim, "db-legacy"::equals)) {
      String own = sim.addEvent(EventSpec.scheduled("Reboot", List.of("agent-1")));
      String legacy =
          sim.addEvent(
              EventSpec.scheduled("Reboot", List.of("db-legacy"))
                  .withNotice(900)
                  .withStartedFor(1));
      List<ObjectNode> first = azure.deliveries();
      assertThat(first).as("only the event of a VM with central delivery").hasSize(1);
      JsonNode info = first.get(0).path("data").path("resourceInfo");
      String resourceId = info.path("id").asText();
      assertThat(resourceId)
          .isEqualTo(MaintenanceEndpoint.vmEventId("db-legacy", legacy))
          .endsWith(
              "/virtualMachines/db-legacy/providers/Microsoft.Maintenance/scheduledevents/"
                  + legacy);
      assertThat(info.path("properties").path("EventStatus").asText()).isEqualTo("Scheduled");
      assertThat(info.path("properties").path("Resources").get(0).asText()).isEqualTo("db-legacy");
      assertThat(azure.deliveries()).as("nothing new, nothing delivered again").isEmpty();
      assertThat(own).isNotBlank();

      HttpClient http =
          HttpClient.newBuilder().sslContext(LoopbackTls.get().clientContext()).build();
      HttpResponse<String> ack =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          azure.maintenance().endpoint()
                              + resourceId
                              + "/acknowledge?api-version=2025-10-01-preview"))
                  .header("Authorization", "Bearer " + ResourceGraphEndpoint.TOKEN)
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(ack.statusCode()).as(ack.body()).isEqualTo(200);
      assertThat(sim.eventStatus(legacy)).as("started by the acknowledgement").hasValue("Started");

      List<String> statuses = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                azure
                    .deliveries()
                    .forEach(
                        d ->
                            statuses.add(
                                d.path("data")
                                    .path("resourceInfo")
                                    .path("properties")
                                    .path("EventStatus")
                                    .asText()));
                return statuses.contains("Completed");
              });
      assertThat(statuses).containsExactly("Started", "Completed");
      assertThat(maintenanceRows(azure))
          .as("Resource Graph keeps it, in its newest status")
          .containsExactly(legacy + " Completed");
    }
  }

  /**
   * As Azure's may: twice each, a round in reverse order, NotBefore's weekday wrong, both schemas
   * and event-type spellings.
   */
  @Test
  void withQuirksDeliveriesComeTwiceOutOfOrderWithTheWrongWeekday() throws Exception {
    try (ImdsSimulator sim = ImdsSimulator.builder().vms(VMS).build().start();
        LocalAzure azure = new LocalAzure(sim, "db-legacy"::equals, LocalAzure.Quirks.ALL)) {
      String legacy =
          sim.addEvent(
              EventSpec.scheduled("Reboot", List.of("db-legacy"))
                  .withNotice(900)
                  .withStartedFor(1));
      String notBefore =
          sim.document("2020-07-01").path("Events").get(0).path("NotBefore").asText();
      List<ObjectNode> first = azure.deliveries();
      assertThat(first).hasSize(2);
      assertThat(first.get(0)).isEqualTo(first.get(1));
      String told =
          first
              .get(0)
              .path("data")
              .path("resourceInfo")
              .path("properties")
              .path("NotBefore")
              .asText();
      assertThat(told).isNotEqualTo(notBefore).endsWith(notBefore.substring(3));
      assertThat(told.substring(0, 3)).isNotEqualTo(notBefore.substring(0, 3));

      sim.startEvent(legacy);
      await().atMost(Duration.ofSeconds(30)).until(() -> sim.eventStatus(legacy).isEmpty());
      List<String> statuses = new ArrayList<>();
      List<ObjectNode> second = azure.deliveries();
      assertThat(second)
          .as("every other delivery in Event Grid's own schema, with the other event type")
          .anyMatch(
              d ->
                  d.path("eventType").asText().equals("Microsoft.Maintenance/scheduledevents/write")
                      && !d.has("specversion"))
          .anyMatch(d -> d.path("specversion").asText().equals("1.0"));
      second.forEach(
          d ->
              statuses.add(
                  d.path("data")
                      .path("resourceInfo")
                      .path("properties")
                      .path("EventStatus")
                      .asText()));
      assertThat(statuses).containsExactly("Completed", "Completed", "Started", "Started");
    }
  }

  /** {@code maintenanceresources} through the Resource Graph query API: "EventId Status" rows. */
  static List<String> maintenanceRows(LocalAzure azure) throws Exception {
    HttpClient http = HttpClient.newBuilder().sslContext(LoopbackTls.get().clientContext()).build();
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    ObjectNode query = json.createObjectNode();
    query.putArray("subscriptions").add(LocalAzure.SUBSCRIPTION);
    query.put(
        "query", "maintenanceresources | where type =~ 'microsoft.maintenance/scheduledevents'");
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        azure.resourceGraph().endpoint()
                            + ResourceGraphEndpoint.PATH
                            + "?api-version=2021-03-01"))
                .header("Authorization", "Bearer " + ResourceGraphEndpoint.TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(query.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> rows = new ArrayList<>();
    json.readTree(r.body())
        .path("data")
        .forEach(
            row ->
                rows.add(
                    row.path("name").asText()
                        + " "
                        + row.path("properties").path("EventStatus").asText()));
    return rows;
  }
}
