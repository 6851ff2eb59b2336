package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.app.fleet.FleetLab;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.simulator.StartRequestRecord;
import dev.sebridge.state.CrashPoints;
import java.io.IOException;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Two fleet service processes behind one "load balancer" (the test picks one): the one that
 * processes an approval request halts ({@code kill -9} equivalent) right after sending its
 * commands, before committing. The other must answer every query within 30 s, complete the request,
 * and no VM may see two different command ids.
 */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class FleetFailoverTest {
  static final ObjectMapper JSON = new ObjectMapper();
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void killingTheInstanceThatSendsAnApprovalLosesNothingAndDuplicatesNothing(TestInfo test)
      throws Exception {
    Path work = Files.createTempDirectory("fleet-failover-");
    Path logs = AgentProcess.logDir(getClass(), test);
    Path crashOnce = work.resolve("crashed");
    try (FleetLab lab =
        FleetLab.start(work, new FleetLab.Options(6, 3, 1, Duration.ofSeconds(3)))) {
      lab.startAgents(Duration.ofMillis(250), Duration.ofSeconds(5));
      ImdsSimulator sim = lab.simulator();
      List<String> jvm =
          List.of(
              "-D" + CrashPoints.PROPERTY + "=" + CrashPoints.FLEET_REQUEST_SENT,
              "-D" + CrashPoints.ONCE_FILE_PROPERTY + "=" + crashOnce);
      int portA = freePort();
      int portB = freePort();
      try (AgentProcess a = serve(lab, logs, "a", portA, jvm);
          AgentProcess b = serve(lab, logs, "b", portB, jvm)) {
        awaitReady(portA, a);
        awaitReady(portB, b);
        List<SimVm> vms = sim.vms();
        String reboot =
            sim.addEvent(
                EventSpec.scheduled("Reboot", vms.stream().map(SimVm::name).toList())
                    .withNotice(900)
                    .withStartedFor(2));
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    scheduledOn(portA, reboot) == vms.size()
                        && scheduledOn(portB, reboot) == vms.size());

        // Approve through A; if A dies answering, the client retries on B with the same key.
        List<String> chosen = List.of(vms.get(0).vmId(), vms.get(2).vmId(), vms.get(4).vmId());
        String key = "failover-test-1";
        String requestId;
        try {
          requestId = approve(portA, reboot, chosen, key);
        } catch (IOException aDiedAnswering) {
          requestId = approve(portB, reboot, chosen, key);
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> Files.exists(crashOnce) && (!a.isAlive() || !b.isAlive()));
        Instant crashed = Instant.now();
        AgentProcess dead = a.isAlive() ? b : a;
        int survivor = a.isAlive() ? portA : portB;
        assertThat(dead.waitFor(Duration.ofSeconds(10))).isEqualTo(CrashPoints.EXIT_CODE);
        assertThat(dead.stderr()).contains("crash point " + CrashPoints.FLEET_REQUEST_SENT);

        // The survivor serves every query, and the request completes, within 30 s.
        String id = requestId;
        JsonNode request =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () -> {
                      for (String path :
                          List.of("/api/events?open=true", "/api/vms", "/api/events/" + reboot)) {
                        if (get(survivor, path).statusCode() != 200) {
                          return JSON.createObjectNode();
                        }
                      }
                      HttpResponse<String> r = get(survivor, "/api/approvals/" + id);
                      return r.statusCode() == 200
                          ? JSON.readTree(r.body())
                          : JSON.createObjectNode();
                    },
                    r -> r.path("complete").asBoolean());
        Duration takeover = Duration.between(crashed, Instant.now());
        assertThat(takeover).isLessThan(Duration.ofSeconds(30));
        assertThat(request.path("outcomes").path("accepted").asInt()).isEqualTo(3);

        // Each chosen VM saw one command id (copies of an aborted attempt carry the same id) and
        // posted once; no other VM was sent anything.
        Map<String, Set<String>> idsByVm = lab.commandIdsByVm();
        System.out.printf(
            "fleet failover: instance on port %d halted, survivor on %d served everything and"
                + " completed the request %d ms later; command ids by VM: %s%n",
            survivor == portA ? portB : portA, survivor, takeover.toMillis(), idsByVm);
        assertThat(idsByVm.keySet()).containsExactlyInAnyOrderElementsOf(chosen);
        idsByVm.forEach((vm, ids) -> assertThat(ids).as(vm).hasSize(1));
        Map<String, List<StartRequestRecord>> posts =
            sim.startRequests().stream().collect(Collectors.groupingBy(StartRequestRecord::vm));
        Set<String> chosenNames = new HashSet<>();
        vms.stream().filter(v -> chosen.contains(v.vmId())).forEach(v -> chosenNames.add(v.name()));
        assertThat(posts.keySet()).isEqualTo(chosenNames);
        posts.values().forEach(p -> assertThat(p).hasSize(1));
      }
    }
  }

  /**
   * The instance running a rollout halts after sending its second wave's approvals, before the
   * commit. The other continues from the committed state: the second wave again (the same request
   * ids, so no VM gets a second command), then the rest, and no zone ever has two VMs out.
   */
  @Test
  void killingTheInstanceThatRunsARolloutMidWaveContinuesFromTheCommittedState(TestInfo test)
      throws Exception {
    Path work = Files.createTempDirectory("fleet-rollout-failover-");
    Path logs = AgentProcess.logDir(getClass(), test);
    Path crashOnce = work.resolve("crashed");
    try (FleetLab lab =
        FleetLab.start(work, new FleetLab.Options(6, 3, 1, Duration.ofSeconds(1)))) {
      lab.startAgents(Duration.ofMillis(250), Duration.ofSeconds(1));
      ImdsSimulator sim = lab.simulator();
      List<String> jvm =
          List.of(
              "-D" + CrashPoints.PROPERTY + "=" + CrashPoints.FLEET_ROLLOUT_RELEASED + "#2",
              "-D" + CrashPoints.ONCE_FILE_PROPERTY + "=" + crashOnce);
      int portA = freePort();
      int portB = freePort();
      try (AgentProcess a = serve(lab, logs, "a", portA, jvm);
          AgentProcess b = serve(lab, logs, "b", portB, jvm)) {
        awaitReady(portA, a);
        awaitReady(portB, b);
        // One instance runs the rollouts task (and writes Azure's inventory, when there is one),
        // never both: the sum is 0 only while a rebalance moves the task.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> rolloutsOwner(portA) + rolloutsOwner(portB), n -> n == 1);
        List<String> events = new ArrayList<>();
        for (SimVm vm : sim.vms()) {
          events.add(
              sim.addEvent(
                  EventSpec.scheduled("Reboot", List.of(vm.name()))
                      .withNotice(900)
                      .withStartedFor(1)));
        }
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  for (String e : events) {
                    if (!scheduledOnBoth(portA, portB, e)) {
                      return false;
                    }
                  }
                  return true;
                });
        Map<String, Object> body = new HashMap<>();
        body.put("eventIds", events);
        body.put("maxUnavailable", "1");
        body.put("groupBy", List.of("zone"));
        body.put("settle", "1s");
        body.put("timeout", "2m");
        body.put("reason", "rollout failover test");
        HttpResponse<String> created =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + portA + "/api/rollouts"))
                    .header("Authorization", "Bearer " + FleetLab.APPROVER_TOKEN)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(202);
        String id = JSON.readTree(created.body()).path("rolloutId").asText();

        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Files.exists(crashOnce) && (!a.isAlive() || !b.isAlive()));
        AgentProcess dead = a.isAlive() ? b : a;
        int survivor = a.isAlive() ? portA : portB;
        assertThat(dead.waitFor(Duration.ofSeconds(10))).isEqualTo(CrashPoints.EXIT_CODE);
        assertThat(dead.stderr()).contains("crash point " + CrashPoints.FLEET_ROLLOUT_RELEASED);
        JsonNode rollout =
            await()
                .atMost(Duration.ofSeconds(90))
                .until(
                    () -> {
                      HttpResponse<String> r = get(survivor, "/api/rollouts/" + id);
                      return r.statusCode() == 200
                          ? JSON.readTree(r.body())
                          : JSON.createObjectNode();
                    },
                    r -> r.path("state").asText().equals("completed"));

        assertThat(rolloutsOwner(survivor)).as("the survivor runs the rollouts task").isEqualTo(1);
        // every VM: one command id, one POST
        Map<String, Set<String>> idsByVm = lab.commandIdsByVm();
        assertThat(idsByVm).hasSize(6);
        idsByVm.forEach((vm, ids) -> assertThat(ids).as(vm).hasSize(1));
        Map<String, List<StartRequestRecord>> posts =
            sim.startRequests().stream().collect(Collectors.groupingBy(StartRequestRecord::vm));
        assertThat(posts).hasSize(6);
        posts.values().forEach(p -> assertThat(p).hasSize(1));
        // Never two VMs of a zone out at once, by the simulator's own record (IMDS semantics):
        // a VM is out from its StartRequest until its event has left the document, so in each
        // zone the next POST comes after the previous VM's event ended.
        Map<String, String> eventOf = new HashMap<>();
        for (int i = 0; i < sim.vms().size(); i++) {
          eventOf.put(sim.vms().get(i).name(), events.get(i));
        }
        Map<String, List<SimVm>> byZone =
            sim.vms().stream().collect(Collectors.groupingBy(SimVm::zone));
        assertThat(byZone).hasSize(3);
        for (List<SimVm> zone : byZone.values()) {
          List<String> order =
              zone.stream()
                  .map(SimVm::name)
                  .sorted(java.util.Comparator.comparing(n -> posts.get(n).get(0).at()))
                  .toList();
          for (int i = 1; i < order.size(); i++) {
            String before = order.get(i - 1);
            Instant ended =
                sim.eventEndedAt(eventOf.get(before))
                    .orElseThrow(() -> new AssertionError(before + "'s event never ended"));
            Instant next = posts.get(order.get(i)).get(0).at();
            assertThat(next)
                .as(
                    "zone %s: %s posted before %s's event ended; rollout: %s; StartRequests: %s",
                    zone.get(0).zone(), order.get(i), before, rollout, sim.startRequests())
                .isAfter(ended);
          }
        }
        rollout
            .path("vms")
            .forEach(
                v ->
                    assertThat(Instant.parse(v.path("agentBackAt").asText()))
                        .as("%s heard from after its completion", v.path("name").asText())
                        .isAfter(Instant.parse(v.path("completedAt").asText())));
        System.out.printf(
            "fleet rollout failover: the instance on port %d halted after sending wave 2; the"
                + " survivor on %d finished the rollout in %d waves%n",
            survivor == portA ? portB : portA, survivor, rollout.path("waves").size());
      }
    }
  }

  boolean scheduledOnBoth(int portA, int portB, String eventId) throws Exception {
    return scheduledOn(portA, eventId) == 1 && scheduledOn(portB, eventId) == 1;
  }

  /** A fleet service process; its stdout and stderr go to {@code logs} (kept in target/). */
  static AgentProcess serve(FleetLab lab, Path logs, String name, int port, List<String> jvm)
      throws IOException {
    Map<String, String> config =
        lab.fleetConfig(
            name, Map.of("fleet.http.port", Integer.toString(port), "fleet.partitions", "1"));
    List<String> args = new ArrayList<>(List.of("fleet", "serve"));
    config.forEach(
        (k, v) -> {
          args.add("--set");
          args.add(k + "=" + v);
        });
    return AgentProcess.start(logs, jvm, Map.of(), args.toArray(String[]::new));
  }

  void awaitReady(int port, AgentProcess p) {
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              if (!p.isAlive()) {
                throw new AssertionError("fleet service died: " + p.stderr());
              }
              try {
                return http.send(
                            HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + port + "/readyz"))
                                .build(),
                            HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200;
              } catch (IOException notYet) {
                return false;
              }
            });
  }

  int scheduledOn(int port, String eventId) throws Exception {
    HttpResponse<String> r = get(port, "/api/events/" + eventId);
    return r.statusCode() == 200
        ? JSON.readTree(r.body()).path("counts").path("scheduled").asInt()
        : 0;
  }

  String approve(int port, String eventId, List<String> vmIds, String idempotencyKey)
      throws Exception {
    Map<String, Object> body = new HashMap<>();
    body.put("vms", vmIds);
    body.put("reason", "failover test");
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/api/events/" + eventId + "/approve"))
                .header("Authorization", "Bearer " + FleetLab.APPROVER_TOKEN)
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    return JSON.readTree(r.body()).path("requestId").asText();
  }

  /** The instance's {@code sebridge_fleet_rollouts_owner}: 1 where the rollouts task runs. */
  int rolloutsOwner(int port) throws Exception {
    HttpResponse<String> r = get(port, "/metrics");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body()
        .lines()
        .filter(l -> l.startsWith("sebridge_fleet_rollouts_owner "))
        .map(l -> (int) Double.parseDouble(l.substring(l.indexOf(' ') + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sebridge_fleet_rollouts_owner: " + r.body()));
  }

  HttpResponse<String> get(int port, String path) throws Exception {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .header("Authorization", "Bearer " + FleetLab.READER_TOKEN)
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("no answer from port " + port, e);
    }
  }

  /** Outside the ephemeral range: no outgoing connection can take it before the fleet binds it. */
  static int freePort() {
    return dev.sebridge.sink.kafka.embedded.LoopbackPorts.free();
  }
}
