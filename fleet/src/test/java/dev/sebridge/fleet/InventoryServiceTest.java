package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.azure.core.credential.AccessToken;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.fleet.testing.FleetTemplate;
import dev.sebridge.fleet.testing.ServiceConfig;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.simulator.azure.LoopbackTls;
import dev.sebridge.simulator.azure.ResourceGraphEndpoint;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * The inventory as the service runs it: configured by {@code fleet.inventory.*}, read from a local
 * Resource Graph through the Azure SDK, written to {@code <prefix>-inventory} on a real broker,
 * held by every instance's global store, stamped on the VMs' views, counted and served.
 */
class InventoryServiceTest {
  static final String TOKEN = "inventory-test-reader-token";
  static EmbeddedKafkaBroker kafka;
  static ResourceGraphEndpoint graph;
  static FleetService fleet;
  static Map<String, String> config;
  static KafkaProducer<String, byte[]> agentsOut;
  static final AgentEnvelopes agents = new AgentEnvelopes(Clock.systemUTC());
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start(@TempDir Path work) throws Exception {
    kafka = new EmbeddedKafkaBroker().start();
    kafka.createTopic("envelopes", 2);
    kafka.createTopic("commands", 2);
    graph = new ResourceGraphEndpoint();
    for (int i = 1; i <= 3; i++) {
      graph.add(ResourceGraphEndpoint.vm("vm-" + i, "web-" + i, "1", null, Map.of()), false);
    }
    // vm-4 has no agent; the scale set's instance comes from computeresources.
    graph.add(ResourceGraphEndpoint.vm("vm-4", "web-4", "2", null, Map.of()), false);
    graph.add(ResourceGraphEndpoint.vm("vm-5", "api_0", "2", "api", Map.of()), true);
    // Not the envelopes topic's partitions: the hubs that take the events hub's count and those
    // that take fleet.partitions are told apart.
    Map<String, String> c =
        ServiceConfig.of(
            work,
            kafka.bootstrapServers(),
            3,
            List.of(ServiceConfig.token(TOKEN, "sre", "reader")));
    c.put("fleet.inventory.subscriptions", "00000000-0000-0000-0000-000000000000");
    c.put("fleet.inventory.endpoint", graph.endpoint().toString());
    config = Map.copyOf(c);
    fleet = service(config);
    assertThat(fleet.awaitRunning(Duration.ofSeconds(60))).isTrue();
    agentsOut =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers()),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  /** An instance of the service, reading the local Resource Graph through the Azure SDK. */
  static FleetService service(Map<String, String> c) throws Exception {
    return FleetService.builder(Configuration.of(c))
        .inventory(
            request ->
                Mono.just(
                    new AccessToken(
                        ResourceGraphEndpoint.TOKEN, OffsetDateTime.now().plusHours(1))),
            new JdkHttpClientBuilder(
                    HttpClient.newBuilder().sslContext(LoopbackTls.get().clientContext()))
                .build())
        .build()
        .start();
  }

  @AfterAll
  static void stop() {
    agentsOut.close();
    fleet.close();
    graph.close();
    kafka.close();
  }

  /**
   * deploy/azure/fleet.bicep makes exactly the topics the service makes for itself when it may (the
   * service running here, every Kafka Streams changelog included), each with the same partitions
   * and cleanup policy: a store added to the topology without its hub fails here.
   */
  @Test
  void theDeploymentTemplateMakesExactlyTheTopicsTheServiceMakesForItself() throws Exception {
    Map<String, FleetTemplate.Topic> template =
        FleetTemplate.read()
            .topics("sebridge-fleet", "sebridge-fleet", "sebridge-fleet-approvals", 3, 2);
    try (Admin admin = kafka.admin()) {
      java.util.Set<String> made = new java.util.TreeSet<>(admin.listTopics().names().get());
      made.removeIf(t -> t.startsWith("__") || t.equals("envelopes") || t.equals("commands"));
      assertThat(made).containsExactlyInAnyOrderElementsOf(template.keySet());
      var described = admin.describeTopics(made).allTopicNames().get();
      var configs =
          admin
              .describeConfigs(
                  made.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList())
              .all()
              .get();
      for (FleetTemplate.Topic hub : template.values()) {
        assertThat(described.get(hub.name()).partitions()).as(hub.name()).hasSize(hub.partitions());
        assertThat(
                configs
                    .get(new ConfigResource(ConfigResource.Type.TOPIC, hub.name()))
                    .get("cleanup.policy")
                    .value())
            .as(hub.name())
            .isEqualTo(hub.compact() ? "compact" : "delete");
      }
    }
  }

  static JsonNode get(String path) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port() + path))
                .header("Authorization", "Bearer " + TOKEN)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new ObjectMapper().readTree(r.body());
  }

  /**
   * Once the inventory's five VMs are read: agents on vm-1..3, one of them claiming scale set "web"
   * Azure does not have it in; and one process heartbeating as a VM that does not exist.
   */
  static void agentsReportOnceTheInventoryIsRead() throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/api/coverage").get("inventory").asInt() == 5);
    heartbeat(AgentEnvelopes.vm("vm-1", "web-1", "1", null));
    heartbeat(AgentEnvelopes.vm("vm-2", "web-2", "1", null));
    heartbeat(AgentEnvelopes.vm("vm-3", "web-3", "3", "web"));
    heartbeat(AgentEnvelopes.vm("invented-1", "web-9", "1", "web"));
  }

  static void heartbeat(VmIdentity vm) throws Exception {
    agentsOut
        .send(
            new ProducerRecord<>(
                "envelopes", vm.vmId(), agents.heartbeat(vm, Duration.ofSeconds(60))))
        .get();
  }

  /**
   * What is counted as the views change (coverage, silent agents, open events) is counted again
   * when an instance starts: it restores the global views from their topics through the same
   * updater, so a new or restarted instance shows what a running one does, not zero.
   */
  @Test
  void anInstanceStartedLaterCountsWhatTheRunningOneCounts(@TempDir Path state) throws Exception {
    agentsReportOnceTheInventoryIsRead();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> gauges(fleet).get("sebridge_fleet_vms").equals("4.0"));
    Map<String, String> running = gauges(fleet);
    assertThat(running)
        .containsEntry("sebridge_fleet_unknown_vms", "1.0")
        .containsEntry("sebridge_fleet_inventory_without_agent", "2.0")
        .containsEntry("sebridge_fleet_silent_agents", "0.0");

    Map<String, String> c = new HashMap<>(config);
    c.put("fleet.state-dir", state.resolve("second").toString());
    try (FleetService second = service(c)) {
      assertThat(second.awaitRunning(Duration.ofSeconds(60))).isTrue();
      // Nothing new is sent: what it counts it restored (were restoring to bypass the updater,
      // its counts would stay at zero and this would time out).
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(gauges(second)).isEqualTo(running));
    }
  }

  /** The coverage, VM, silent and open-event gauges of an instance. */
  static Map<String, String> gauges(FleetService s) {
    Map<String, String> out = new java.util.TreeMap<>();
    for (String line : s.metrics().scrape().split("\n")) {
      String[] p = line.split(" ");
      if (p.length == 2
          && List.of(
                  "sebridge_fleet_vms",
                  "sebridge_fleet_silent_agents",
                  "sebridge_fleet_open_events",
                  "sebridge_fleet_unknown_vms",
                  "sebridge_fleet_inventory_vms",
                  "sebridge_fleet_inventory_without_agent")
              .contains(p[0])) {
        out.put(p[0], p[1]);
      }
    }
    return out;
  }

  @Test
  void theInventorysVmsAreCountedAndAnInventedVmIdIsUnknown() throws Exception {
    agentsReportOnceTheInventoryIsRead();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/api/coverage").get("unknown").asInt() == 1);
    JsonNode c = get("/api/coverage");
    assertThat(c.get("live").asInt()).isEqualTo(3);
    assertThat(c.get("withoutAgent").asInt()).isEqualTo(2);
    assertThat(c.get("refreshedAt").isTextual()).isTrue();
    assertThat(get("/api/coverage/without-agent").get("vms"))
        .extracting(v -> v.get("vmId").asText())
        .containsExactly("vm-4", "vm-5");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> fleet.views().vm("vm-3").map(v -> v.inventory() != null).orElse(false));
    var vm3 = fleet.views().vm("vm-3").orElseThrow();
    assertThat(vm3.inventory()).isEqualTo(InventoryState.KNOWN);
    assertThat(vm3.scaleSet()).as("Azure's, not the agent's").isNull();
    assertThat(vm3.zone()).isEqualTo("1");
    assertThat(get("/api/vms?inventory=unknown").get("vms"))
        .extracting(v -> v.get("vmId").asText())
        .containsExactly("invented-1");
    assertThat(fleet.metrics().scrape()).contains("sebridge_fleet_unknown_vms 1.0");
  }
}
