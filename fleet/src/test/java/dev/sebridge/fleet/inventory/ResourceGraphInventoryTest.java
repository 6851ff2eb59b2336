package dev.sebridge.fleet.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.simulator.azure.LoopbackTls;
import dev.sebridge.simulator.azure.ResourceGraphEndpoint;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The inventory read through the Azure SDK's real pipeline (token, retry policy, JSON) against a
 * local HTTPS endpoint speaking Resource Graph's wire format.
 */
class ResourceGraphInventoryTest {
  static ResourceGraphEndpoint graph;
  static final List<String> scopesAsked = new CopyOnWriteArrayList<>();
  static final TokenCredential CREDENTIAL =
      request -> {
        scopesAsked.addAll(request.getScopes());
        return Mono.just(
            new AccessToken(ResourceGraphEndpoint.TOKEN, OffsetDateTime.now().plusHours(1)));
      };
  static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    graph = new ResourceGraphEndpoint();
    http =
        new JdkHttpClientBuilder(
                java.net.http.HttpClient.newBuilder().sslContext(LoopbackTls.get().clientContext()))
            .build();
  }

  @AfterAll
  static void stop() {
    graph.close();
  }

  @BeforeEach
  void reset() {
    graph.clear();
    graph.pageSize(1000);
    graph.fault(null, 0);
  }

  ResourceGraphInventory inventory(ResourceGraphInventory.Tag tag) {
    return new ResourceGraphInventory(
        graph.endpoint(),
        CREDENTIAL,
        http,
        new ResourceGraphInventory.Scope(List.of("sub-a", "sub-b"), List.of(), tag));
  }

  @Test
  void everyPageOfBothTablesIsReadAndEveryVmKeyedByItsLowerCaseVmId() {
    for (int i = 0; i < 2_500; i++) {
      graph.add(
          ResourceGraphEndpoint.vm(
              String.format("AAAAAAAA-0000-0000-0000-%012d", i),
              "web-" + i,
              Integer.toString(1 + i % 3),
              null,
              Map.of()),
          false);
    }
    for (int i = 0; i < 40; i++) {
      graph.add(
          ResourceGraphEndpoint.vm(
              String.format("bbbbbbbb-0000-0000-0000-%012d", i), "api_" + i, "2", "api", Map.of()),
          true);
    }
    int before = graph.calls().size();

    Map<String, InventoryVm> read = inventory(null).read();

    assertThat(read).hasSize(2_540);
    InventoryVm web7 = read.get("aaaaaaaa-0000-0000-0000-000000000007");
    assertThat(web7.vmId()).isEqualTo("AAAAAAAA-0000-0000-0000-000000000007");
    assertThat(web7.zone()).isEqualTo("2");
    assertThat(web7.scaleSet()).as("an empty column is no value").isNull();
    assertThat(read.get("bbbbbbbb-0000-0000-0000-000000000003").scaleSet()).isEqualTo("api");
    List<ResourceGraphEndpoint.Call> calls = graph.calls().subList(before, graph.calls().size());
    assertThat(calls).as("three pages of VMs, one of scale-set instances").hasSize(4);
    assertThat(calls).allMatch(ResourceGraphEndpoint.Call::authorized);
    assertThat(calls.get(0).subscriptions()).containsExactly("sub-a", "sub-b");
    assertThat(calls.get(1).skipToken()).isNotNull();
    assertThat(calls.get(3).query()).startsWith("computeresources");
    assertThat(scopesAsked).contains(graph.endpoint() + "/.default");
  }

  @Test
  void aTagFilterIsPartOfTheQuery() {
    graph.add(ResourceGraphEndpoint.vm("v-1", "web-1", "1", null, Map.of("fleet", "Prod")), false);
    graph.add(ResourceGraphEndpoint.vm("v-2", "web-2", "1", null, Map.of("fleet", "dev")), false);
    Map<String, InventoryVm> read =
        inventory(new ResourceGraphInventory.Tag("fleet", "prod")).read();
    assertThat(read).containsOnlyKeys("v-1");
    assertThat(read.get("v-1").tags()).containsEntry("fleet", "Prod");
  }

  @Test
  void throttlingIsRetriedByTheSdksPipeline() {
    graph.add(ResourceGraphEndpoint.vm("v-1", "web-1", "1", null, Map.of()), false);
    graph.fault(ResourceGraphEndpoint.Fault.THROTTLED, 2);
    assertThat(inventory(null).read()).containsOnlyKeys("v-1");
    assertThat(graph.calls()).extracting(ResourceGraphEndpoint.Call::status).contains(429, 429);
  }

  @Test
  void anAnswerThatIsNotAListOfRowsIsAnErrorNeverNoVms() {
    graph.add(ResourceGraphEndpoint.vm("v-1", "web-1", "1", null, Map.of()), false);
    graph.fault(ResourceGraphEndpoint.Fault.NOT_A_LIST, 1);
    assertThatThrownBy(() -> inventory(null).read()).hasMessageContaining("without a list of rows");
  }

  @Test
  void aTruncatedAnswerWithoutATokenIsAnError() {
    graph.add(ResourceGraphEndpoint.vm("v-1", "web-1", "1", null, Map.of()), false);
    graph.add(ResourceGraphEndpoint.vm("v-2", "web-2", "1", null, Map.of()), false);
    graph.pageSize(1);
    graph.fault(ResourceGraphEndpoint.Fault.TRUNCATED_WITHOUT_TOKEN, 1);
    assertThatThrownBy(() -> inventory(null).read()).hasMessageContaining("truncated");
  }

  @Test
  void aRowWithoutAVmIdIsLeftOut() {
    graph.add(ResourceGraphEndpoint.vm("v-1", "web-1", "1", null, Map.of()), false);
    var bad = ResourceGraphEndpoint.vm("", "web-x", "1", null, Map.of());
    graph.add(bad, false);
    assertThat(inventory(null).read()).containsOnlyKeys("v-1");
  }
}
