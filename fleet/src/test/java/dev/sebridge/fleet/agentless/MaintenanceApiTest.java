package dev.sebridge.fleet.agentless;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.simulator.azure.MaintenanceEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Maintenance API client through the Azure SDK's pipeline (token, retries, timeouts) against a
 * local HTTPS endpoint speaking its wire format: every outcome an agent's result would have.
 */
class MaintenanceApiTest {
  static MaintenanceEndpoint azure;
  static MaintenanceApi api;

  static final String E1 =
      MaintenanceEndpoint.vmEventId("db-1", "5A1E9C7B-0000-4000-8000-000000000001");
  static final String E2 =
      MaintenanceEndpoint.vmEventId("db-1", "5A1E9C7B-0000-4000-8000-000000000002");
  static final String E3 =
      MaintenanceEndpoint.vmEventId("db-2", "5A1E9C7B-0000-4000-8000-000000000003");

  @BeforeAll
  static void start() throws Exception {
    azure = new MaintenanceEndpoint();
    api =
        new MaintenanceApi(
            azure.endpoint(),
            MaintenanceApi.DEFAULT_API_VERSION,
            dev.sebridge.fleet.testing.AzureAccess.credential(),
            dev.sebridge.fleet.testing.AzureAccess.httpClient(),
            Duration.ofMillis(10),
            java.time.Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    azure.close();
  }

  @BeforeEach
  void clear() {
    azure.clear();
  }

  /** Within a minute. */
  static Map<String, MaintenanceApi.Outcome> ack(List<String> ids) {
    return api.acknowledge(ids, java.time.Instant.now().plusSeconds(60));
  }

  @Test
  void oneEventIsAcknowledgedWithTheTokenAndStartsThere() {
    azure.schedule(E1);
    MaintenanceApi.Outcome o = ack(List.of(E1)).get(E1);
    assertThat(o.isAccepted()).as(o.toString()).isTrue();
    assertThat(o.reason()).contains("Successfully Approved");
    assertThat(azure.calls()).hasSize(1);
    assertThat(azure.calls().get(0).authorized()).isTrue();
    assertThat(azure.calls().get(0).path()).endsWith("/acknowledge");
    assertThat(azure.started()).containsExactly("5a1e9c7b-0000-4000-8000-000000000001");
  }

  @Test
  void throttlingAndServerErrorsAreRetriedByThePipeline() {
    azure.schedule(E1);
    azure.fault(MaintenanceEndpoint.Fault.THROTTLED, 1);
    assertThat(ack(List.of(E1)).get(E1).isAccepted()).isTrue();
    assertThat(azure.calls())
        .extracting(MaintenanceEndpoint.Call::status)
        .containsExactly(429, 200);

    azure.clear();
    azure.schedule(E1);
    azure.fault(MaintenanceEndpoint.Fault.SERVER_ERROR, 10);
    MaintenanceApi.Outcome o = ack(List.of(E1)).get(E1);
    assertThat(o.outcome()).isEqualTo("failed");
    assertThat(o.reasonCode()).isEqualTo("maintenance-api-unavailable");
    assertThat(azure.calls()).hasSize(MaintenanceApi.RETRIES + 1);
    assertThat(azure.started()).isEmpty();
  }

  @Test
  void aMissingRoleAndAnUnknownEventFailWithAzuresWords() {
    azure.schedule(E1);
    azure.fault(MaintenanceEndpoint.Fault.FORBIDDEN, 1);
    MaintenanceApi.Outcome forbidden = ack(List.of(E1)).get(E1);
    assertThat(forbidden.reasonCode()).isEqualTo("forbidden");
    assertThat(forbidden.reason())
        .contains("AuthorizationFailed")
        .contains("Scheduled Events Contributor")
        .contains("virtualMachines/db-1");

    MaintenanceApi.Outcome unknown = ack(List.of(E3)).get(E3);
    assertThat(unknown.reasonCode()).isEqualTo("not-found");
    assertThat(unknown.reason()).contains("ScheduledEventNotFound");
  }

  /** Azure's Retry-After is honoured: the retry waits what Azure asked, not the 10 ms backoff. */
  @Test
  void aThrottledCallWaitsWhatAzureAsks() {
    azure.schedule(E1);
    azure.fault(MaintenanceEndpoint.Fault.THROTTLED, 1);
    azure.retryAfter(1);
    long start = System.nanoTime();
    assertThat(ack(List.of(E1)).get(E1).isAccepted()).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(900));
  }

  /**
   * No call starts after the approval's deadline, and none runs past it: an answer that would come
   * later (Azure asks to wait 5 s, 1 s is left) is unconfirmed, never accepted.
   */
  @Test
  void noCallStartsOrRunsPastTheDeadline() {
    azure.schedule(E1);
    MaintenanceApi.Outcome late =
        api.acknowledge(List.of(E1), java.time.Instant.now().minusSeconds(1)).get(E1);
    assertThat(late.reasonCode()).isEqualTo("expired");
    assertThat(azure.calls()).isEmpty();

    azure.fault(MaintenanceEndpoint.Fault.THROTTLED, 5);
    azure.retryAfter(5);
    MaintenanceApi.Outcome cut =
        api.acknowledge(List.of(E1), java.time.Instant.now().plusSeconds(1)).get(E1);
    assertThat(cut.reasonCode()).isEqualTo("unconfirmed");
    assertThat(cut.outcome()).isEqualTo("failed");
    assertThat(azure.started()).isEmpty();
  }

  @Test
  void aBadIdIsRefusedWithoutACall() {
    String bad = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/accounts/x";
    MaintenanceApi.Outcome o = ack(List.of(bad)).get(bad);
    assertThat(o.reasonCode()).isEqualTo("bad-resource-id");
    assertThat(azure.calls()).isEmpty();
  }

  @Test
  void eventsOfOneVmGoInOneBatchAnd207GivesEachItsOwnOutcome() {
    azure.schedule(E1);
    azure.schedule(E3);
    // E2 is unknown to Azure: the batch answers 207, E1 accepted and E2 failed.
    Map<String, MaintenanceApi.Outcome> out = ack(List.of(E1, E2, E3));
    assertThat(out.get(E1).isAccepted()).as(out.get(E1).toString()).isTrue();
    assertThat(out.get(E2).outcome()).isEqualTo("failed");
    assertThat(out.get(E2).reason()).contains("ScheduledEventNotFound");
    assertThat(out.get(E3).isAccepted()).isTrue();
    assertThat(azure.calls())
        .extracting(MaintenanceEndpoint.Call::status)
        .containsExactlyInAnyOrder(207, 200);
    assertThat(
            azure.calls().stream()
                .filter(c -> c.status() == 207)
                .findFirst()
                .orElseThrow()
                .eventIds())
        .hasSize(2);
  }

  /**
   * A batch Azure takes without doing it (202) is unconfirmed, and one it refuses for the identity
   * (403) is not sent again one event at a time.
   */
  @Test
  void aBatchTakenButNotDoneIsUnconfirmedAndAForbiddenOneIsNotSentAgain() {
    azure.schedule(E1);
    azure.schedule(E2);
    azure.fault(MaintenanceEndpoint.Fault.ACCEPTED, 1);
    Map<String, MaintenanceApi.Outcome> taken = ack(List.of(E1, E2));
    assertThat(taken.values())
        .extracting(MaintenanceApi.Outcome::reasonCode)
        .containsOnly("unconfirmed");
    azure.fault(MaintenanceEndpoint.Fault.ACCEPTED, 1);
    assertThat(ack(List.of(E1)).get(E1).reasonCode()).isEqualTo("unconfirmed");

    azure.clear();
    azure.schedule(E1);
    azure.schedule(E2);
    azure.fault(MaintenanceEndpoint.Fault.FORBIDDEN, 1);
    Map<String, MaintenanceApi.Outcome> forbidden = ack(List.of(E1, E2));
    assertThat(forbidden.values())
        .extracting(MaintenanceApi.Outcome::reasonCode)
        .containsOnly("forbidden");
    assertThat(azure.calls()).hasSize(1);
  }

  @Test
  void aBatchRefusedWholeIsSentOneEventAtATime() {
    azure.schedule(E1);
    azure.schedule(E2);
    azure.refuseBatch(true);
    Map<String, MaintenanceApi.Outcome> out = ack(List.of(E1, E2));
    assertThat(out.values()).allMatch(MaintenanceApi.Outcome::isAccepted);
    assertThat(azure.calls())
        .extracting(MaintenanceEndpoint.Call::status)
        .containsExactly(400, 200, 200);
  }

  @Test
  void a207ThatDoesNotConfirmAnEventIsNeverAccepted() throws Exception {
    ObjectMapper json = new ObjectMapper();
    var body =
        json.readTree(
            "{\"value\":[{\"id\":\""
                + E1
                + "\",\"statusCode\":200},"
                + "{\"name\":\"5A1E9C7B-0000-4000-8000-000000000002\",\"status\":\"Failed\"}]}");
    Map<String, MaintenanceApi.Outcome> out = MultiStatus.results(body, List.of(E1, E2, E3));
    assertThat(out.get(E1).isAccepted()).isTrue();
    assertThat(out.get(E2).outcome()).isEqualTo("failed");
    assertThat(out.get(E3).reasonCode()).isEqualTo("unconfirmed");
    assertThat(
            MultiStatus.results(json.readTree("{\"value\":\"x\"}"), List.of(E1))
                .get(E1)
                .isAccepted())
        .isFalse();
  }
}
