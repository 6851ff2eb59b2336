package dev.sebridge.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.Fault;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.kafka.KafkaTestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One seeded chaos run: two VMs, each with a real {@code sebridge run} process publishing to Kafka,
 * and a random schedule of event lifecycles of every type (cancellations, reschedules, hardware
 * failures included), IMDS faults (500, 429, 410, garbage, not-a-document, slow answers), broker
 * outages and {@code kill -9} of agents with restarts. The same seed gives the same sequence of
 * random choices (which ones apply depends on timing, so a replay is close, not identical).
 *
 * <p>The ground truth is what the run did to the simulator. Every phase of an event lasts longer
 * than the longest time an agent can be blind (a restart, or a fault burst with backoff), so every
 * change is observable and the checker is strict: per VM and EventId, the deduplicated transitions
 * on the topic are exactly the truth; nothing is missing or invented; duplicates are identical;
 * transitions far enough apart in time keep their order per vmId.
 */
final class ChaosRun {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration PHASE_MIN = Duration.ofSeconds(7);

  /** Changes this far apart must reach the topic in the order they happened (per vmId). */
  static final Duration ORDER_SEPARATION = Duration.ofSeconds(4);

  static final List<String> TYPES = List.of("Freeze", "Reboot", "Redeploy", "Preempt", "Terminate");
  static final SimVm VM0 = SimVm.of("chaos-0", "55555555-0000-4000-8000-000000000000");
  static final SimVm VM1 = SimVm.of("chaos-1", "55555555-0000-4000-8000-000000000001");

  /** One change made to the simulator: the truth. */
  record Change(long atMillis, String eventId, String transition) {}

  /** What a run did and what the checker found. */
  record Result(
      long seed,
      int expectedTransitions,
      int deliveredTransitions,
      int duplicates,
      int inferred,
      int kills,
      int outages,
      int faultBursts,
      List<String> problems,
      Duration took) {
    String summary() {
      return String.format(
          "seed %d: %s — %d transitions expected, %d delivered (%d duplicates, %d inferred);"
              + " %d kill -9, %d broker outages, %d fault bursts; %.0f s",
          seed,
          problems.isEmpty() ? "OK" : "FAILED " + problems,
          expectedTransitions,
          deliveredTransitions,
          duplicates,
          inferred,
          kills,
          outages,
          faultBursts,
          took.toMillis() / 1000.0);
    }
  }

  private static final class Open {
    final String id;
    String phase;
    long sinceMillis;
    int reschedules;

    Open(String id, String phase, long since) {
      this.id = id;
      this.phase = phase;
      this.sinceMillis = since;
    }
  }

  private final long seed;
  private final Random random;
  private final Path dir;
  private final KafkaTestBroker kafka;
  private final ImdsSimulator sim;
  private final String topic;
  private final Map<SimVm, AgentProcess> agents = new LinkedHashMap<>();
  private final Map<String, Open> open = new LinkedHashMap<>();
  private final List<Change> truth = new ArrayList<>();
  private final long t0 = System.nanoTime();
  private int kills;
  private int outages;
  private int faultBursts;
  private int eventCount;
  private long lastKillMillis = -10_000;
  private long lastFaultMillis = -10_000;
  private long brokerBackAtMillis = -1;
  private boolean falsifyTruth;

  ChaosRun(long seed, Path dir, KafkaTestBroker kafka) {
    this.seed = seed;
    this.random = new Random(seed);
    this.dir = dir;
    this.kafka = kafka;
    this.sim = ImdsSimulator.builder().vm(VM0).vm(VM1).build().start();
    this.topic = KafkaTestBroker.uniqueTopic("chaos-" + seed);
    kafka.createTopic(topic, 3);
  }

  private long now() {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /**
   * For testing the checker itself: before checking, one real change is dropped from the truth and
   * one that never happened is added, so a correct run must be reported as failed.
   */
  ChaosRun falsifyTruth() {
    falsifyTruth = true;
    return this;
  }

  Result run(Duration chaos) throws Exception {
    return run(chaos, () -> {});
  }

  /**
   * @param started told when the chaos begins: once both agents have read their first document
   */
  Result run(Duration chaos, Runnable started) throws Exception {
    try {
      for (SimVm vm : List.of(VM0, VM1)) {
        startAgent(vm);
      }
      // An agent still starting (a JVM on a busy machine) would miss the first event's first phase.
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> agents.keySet().stream().allMatch(vm -> sim.servedIncarnation(vm.name()) >= 0));
      started.run();
      long end = now() + chaos.toMillis();
      while (now() < end) {
        step();
        Thread.sleep(300 + random.nextInt(900));
      }
      // Wind down: broker back, then every open event ends (each phase still lasts PHASE_MIN).
      bringBrokerBack();
      while (!open.isEmpty()) {
        for (Open e : List.copyOf(open.values())) {
          if (eligible(e)) {
            if (e.phase.equals("Scheduled")) {
              cancel(e);
            } else {
              complete(e);
            }
          }
        }
        Thread.sleep(250);
      }
      for (SimVm vm : agents.keySet()) {
        if (!agents.get(vm).isAlive()) {
          throw new AssertionError("agent " + vm.name() + " died: " + agents.get(vm).stderr());
        }
      }
      return check();
    } finally {
      agents.values().forEach(AgentProcess::close);
      if (brokerBackAtMillis >= 0) {
        kafka.bringBack();
      }
      sim.close();
    }
  }

  private void step() throws Exception {
    long now = now();
    if (brokerBackAtMillis >= 0 && now >= brokerBackAtMillis) {
      bringBrokerBack();
    }
    int dice = random.nextInt(100);
    if (dice < 30 && open.size() < 4) {
      newEvent();
    } else if (dice < 60) {
      List<Open> ready = open.values().stream().filter(this::eligible).toList();
      if (!ready.isEmpty()) {
        advance(ready.get(random.nextInt(ready.size())));
      }
    } else if (dice < 75) {
      if (now - lastKillMillis > 4000 && now - lastFaultMillis > 4000 && sim.pendingFaults() == 0) {
        faultBurst();
      }
    } else if (dice < 85) {
      if (brokerBackAtMillis < 0) {
        kafka.takeDown();
        outages++;
        brokerBackAtMillis = now + 3000 + random.nextInt(7000);
      }
    } else if (now - lastKillMillis > 8000 && now - lastFaultMillis > 4000) {
      SimVm vm = random.nextBoolean() ? VM0 : VM1;
      agents.get(vm).kill9();
      kills++;
      lastKillMillis = now();
      startAgent(vm);
    }
  }

  private boolean eligible(Open e) {
    return now() - e.sinceMillis >= PHASE_MIN.toMillis();
  }

  private void newEvent() {
    String id = String.format("CHAOS-%d-%02d", seed, ++eventCount);
    String type = TYPES.get(random.nextInt(TYPES.size()));
    List<String> resources =
        switch (random.nextInt(3)) {
          case 0 -> List.of(VM0.name());
          case 1 -> List.of(VM1.name());
          default -> List.of(VM0.name(), VM1.name());
        };
    EventSpec spec = EventSpec.scheduled(type, resources).withId(id).withStartedFor(86_400);
    boolean hardwareFailure = type.equals("Redeploy") && random.nextInt(3) == 0;
    if (hardwareFailure) {
      spec = spec.asHardwareFailure();
    }
    sim.addEvent(spec);
    String phase = hardwareFailure ? "Started" : "Scheduled";
    open.put(id, new Open(id, phase, now()));
    truth.add(new Change(now(), id, phase));
  }

  private void advance(Open e) {
    if (e.phase.equals("Started")) {
      complete(e);
      return;
    }
    int dice = random.nextInt(100);
    if (dice < 55) {
      sim.startEvent(e.id);
      e.phase = "Started";
      e.sinceMillis = now();
      truth.add(new Change(now(), e.id, "Started"));
    } else if (dice < 80) {
      cancel(e);
    } else {
      // NotBefore moves later by at least two minutes each time: always a visible change.
      sim.rescheduleEvent(e.id, 900 + 120.0 * ++e.reschedules);
      e.sinceMillis = now();
      truth.add(new Change(now(), e.id, "Updated"));
    }
  }

  private void cancel(Open e) {
    sim.cancelEvent(e.id);
    open.remove(e.id);
    truth.add(new Change(now(), e.id, "Canceled"));
  }

  private void complete(Open e) {
    sim.completeEvent(e.id);
    open.remove(e.id);
    truth.add(new Change(now(), e.id, "Completed"));
  }

  private void faultBurst() {
    int times = 1 + random.nextInt(3);
    Fault f =
        switch (random.nextInt(6)) {
          case 0 -> new Fault.Status(500, null);
          case 1 -> new Fault.Status(429, null);
          case 2 -> new Fault.Status(410, null);
          case 3 -> new Fault.Garbage(null);
          case 4 -> new Fault.NotADocument(null);
          default -> new Fault.Delay(500 + random.nextInt(2000));
        };
    sim.injectFault(f, times);
    faultBursts++;
    lastFaultMillis = now();
  }

  private void bringBrokerBack() {
    if (brokerBackAtMillis >= 0) {
      kafka.bringBack();
      brokerBackAtMillis = -1;
    }
  }

  private void startAgent(SimVm vm) throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("imds.endpoint", sim.baseUri(vm.name()).toString());
    settings.put("imds.max-backoff", "1s");
    settings.put("state.dir", dir.resolve("state-" + seed + "-" + vm.name()).toString());
    settings.put("sinks", "kafka");
    settings.put("sink.kafka.bootstrap-servers", kafka.bootstrapServers());
    settings.put("sink.kafka.topic", topic);
    settings.put("publish.max-backoff", "1s");
    agents.put(vm, AgentProcess.run(dir.resolve("logs-" + seed), List.of(), Map.of(), settings));
  }

  // ------------------------------------------------------------------ checker

  private Result check() throws Exception {
    if (falsifyTruth && !truth.isEmpty()) {
      Change dropped = truth.remove(truth.size() - 1);
      truth.add(new Change(dropped.atMillis(), dropped.eventId(), "Updated"));
    }
    int expectedPerVm = truth.size();
    List<ConsumerRecord<byte[], byte[]>> records = List.of();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    Map<String, Integer> distinct = new HashMap<>();
    while (System.nanoTime() < deadline) {
      records = kafka.readAll(topic, 2 * expectedPerVm, Duration.ofSeconds(5));
      distinct.clear();
      for (ConsumerRecord<byte[], byte[]> r : records) {
        JsonNode env = JSON.readTree(r.value());
        if (env.get("type").asText().startsWith("dev.sebridge.scheduledevent.")) {
          distinct.put(env.get("id").asText(), 1);
        }
      }
      if (distinct.size() >= 2 * expectedPerVm) {
        break;
      }
    }
    List<String> problems = new ArrayList<>();
    Map<String, JsonNode> byId = new HashMap<>();
    Map<String, List<JsonNode>> perVm = new LinkedHashMap<>();
    int duplicates = 0;
    int inferred = 0;
    List<ConsumerRecord<byte[], byte[]>> sorted = new ArrayList<>(records);
    sorted.sort(
        Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
            .thenComparingLong(ConsumerRecord::offset));
    for (ConsumerRecord<byte[], byte[]> r : sorted) {
      JsonNode env = JSON.readTree(r.value());
      if (!env.get("type").asText().startsWith("dev.sebridge.scheduledevent.")) {
        continue;
      }
      String key = new String(r.key(), StandardCharsets.UTF_8);
      if (!key.equals(env.get("partitionkey").asText())) {
        problems.add("record keyed " + key + " for vmId " + env.get("partitionkey").asText());
      }
      JsonNode first = byId.putIfAbsent(env.get("id").asText(), env);
      if (first != null) {
        duplicates++;
        if (!first.equals(env)) {
          problems.add("duplicate id " + env.get("id").asText() + " with different content");
        }
        continue;
      }
      if (env.at("/data/inferred").asBoolean()) {
        inferred++;
      }
      perVm.computeIfAbsent(key, k -> new ArrayList<>()).add(env);
    }
    Map<String, Change> truthByKey = new HashMap<>();
    for (Change c : truth) {
      truthByKey.put(c.eventId() + ":" + c.transition() + ":" + ordinal(c), c);
    }
    for (SimVm vm : List.of(VM0, VM1)) {
      List<JsonNode> got = perVm.getOrDefault(vm.vmId(), List.of());
      Map<String, List<String>> gotPerEvent = new LinkedHashMap<>();
      for (JsonNode env : got) {
        gotPerEvent
            .computeIfAbsent(env.at("/data/event/EventId").asText(), k -> new ArrayList<>())
            .add(env.at("/data/transition").asText());
      }
      Map<String, List<String>> wantPerEvent = new LinkedHashMap<>();
      for (Change c : truth) {
        wantPerEvent.computeIfAbsent(c.eventId(), k -> new ArrayList<>()).add(c.transition());
      }
      for (var want : wantPerEvent.entrySet()) {
        List<String> g = gotPerEvent.getOrDefault(want.getKey(), List.of());
        if (!g.equals(want.getValue())) {
          problems.add(
              vm.name() + " " + want.getKey() + ": truth " + want.getValue() + ", topic " + g);
        }
      }
      for (String extra : gotPerEvent.keySet()) {
        if (!wantPerEvent.containsKey(extra)) {
          problems.add(vm.name() + ": transitions for an event that never existed: " + extra);
        }
      }
      // Order per vmId: a change well after another must not come before it on the topic.
      List<Long> times = new ArrayList<>();
      Map<String, Integer> seen = new HashMap<>();
      for (JsonNode env : got) {
        String k =
            env.at("/data/event/EventId").asText() + ":" + env.at("/data/transition").asText();
        int n = seen.merge(k, 1, Integer::sum);
        Change c = truthByKey.get(k + ":" + n);
        times.add(c == null ? null : c.atMillis());
      }
      for (int i = 0; i < times.size(); i++) {
        for (int j = i + 1; j < times.size(); j++) {
          if (times.get(i) != null
              && times.get(j) != null
              && times.get(i) - times.get(j) > ORDER_SEPARATION.toMillis()) {
            problems.add(
                vm.name()
                    + ": "
                    + describe(got.get(j))
                    + " happened "
                    + (times.get(i) - times.get(j))
                    + " ms before "
                    + describe(got.get(i))
                    + " but came after it");
          }
        }
      }
    }
    return new Result(
        seed,
        2 * expectedPerVm,
        byId.size(),
        duplicates,
        inferred,
        kills,
        outages,
        faultBursts,
        problems,
        Duration.ofNanos(System.nanoTime() - t0));
  }

  /** The n-th change of this kind for this event (Updated can repeat). */
  private int ordinal(Change c) {
    int n = 0;
    for (Change o : truth) {
      if (o.eventId().equals(c.eventId()) && o.transition().equals(c.transition())) {
        n++;
      }
      if (o == c) {
        break;
      }
    }
    return n;
  }

  private static String describe(JsonNode env) {
    return env.at("/data/event/EventId").asText() + ":" + env.at("/data/transition").asText();
  }
}
