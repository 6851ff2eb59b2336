package dev.sebridge.benchmarks;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.app.fleet.FleetLab;
import dev.sebridge.fleet.FleetService;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.simulator.StartRequestRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The second figure: real agents (in this JVM) against the IMDS simulator and one broker, the fleet
 * service approving one event for all of them at once. Per VM, the approval delay is from the API
 * call to the simulator receiving that VM's StartRequests; every command must be applied once.
 */
final class RealAgentsFigure {
  static final ObjectMapper JSON = new ObjectMapper();

  private final Path work;
  private final int agents;
  private final FleetReport report;

  RealAgentsFigure(Path work, int agents, FleetReport report) {
    this.work = work;
    this.agents = agents;
    this.report = report;
  }

  void run() throws Exception {
    // Azure starts the event 30 s after the first approval: every agent's command lands first.
    try (FleetLab lab =
        FleetLab.start(work, new FleetLab.Options(agents, 12, 1, Duration.ofSeconds(30)))) {
      FleetService fleet = lab.startFleet("bench", Map.of("fleet.partitions", "12"));
      long t0 = System.nanoTime();
      lab.startAgents(Duration.ofSeconds(1), Duration.ofSeconds(60));
      System.out.printf("%d agents started in %d ms%n", agents, FleetBenchmark.ms(t0));
      ImdsSimulator sim = lab.simulator();
      List<String> names = sim.vms().stream().map(SimVm::name).toList();
      String event =
          sim.addEvent(EventSpec.scheduled("Reboot", names).withNotice(900).withStartedFor(5));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  fleet
                          .views()
                          .event(event)
                          .map(e -> e.counts().getOrDefault("scheduled", 0))
                          .orElse(0)
                      == agents);
      HttpClient http = HttpClient.newHttpClient();
      Instant asked = Instant.now();
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:" + fleet.port() + "/api/events/" + event + "/approve"))
                  .header("Authorization", "Bearer " + FleetLab.APPROVER_TOKEN)
                  .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"benchmark\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 202) {
        throw new IllegalStateException("approve answered " + r.statusCode() + ": " + r.body());
      }
      String requestId = JSON.readTree(r.body()).path("requestId").asText();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> fleet.views().request(requestId).map(v -> v.complete()).orElse(false));
      Stats delay = new Stats();
      Map<String, List<StartRequestRecord>> posts =
          sim.startRequests().stream()
              .filter(p -> p.eventIds().stream().anyMatch(event::equalsIgnoreCase))
              .collect(Collectors.groupingBy(StartRequestRecord::vm));
      posts
          .values()
          .forEach(p -> p.forEach(x -> delay.add(Duration.between(asked, x.at()).toMillis())));
      long once = posts.values().stream().filter(p -> p.size() == 1).count();
      Map<String, Set<String>> ids = lab.commandIdsByVm();
      long oneId = ids.values().stream().filter(s -> s.size() == 1).count();
      JsonNode view =
          dev.sebridge.fleet.streams.JsonSerde.JSON.valueToTree(
              fleet.views().request(requestId).orElseThrow());
      long accepted = 0;
      for (JsonNode v : view.path("vms")) {
        if (v.path("outcome").asText().equals("accepted")) {
          accepted++;
        }
      }
      report.realAgents(agents, delay, once, oneId, accepted);
    }
  }
}
