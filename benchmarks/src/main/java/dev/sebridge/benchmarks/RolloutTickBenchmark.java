package dev.sebridge.benchmarks;

import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.LedgerEntry;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutActions;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutPlanner;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.rollout.World;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One rollout over a generated fleet, ticked as the rollout processor ticks it: the fleet-wide
 * ledger loaded from its entries, moved on with the views ({@link Ledger#observe}), constrained by
 * the rollout, the planner's step, the ledger's changes written back. Every VM has its own one-VM
 * event (Azure sends a host update so), the groups are scale sets, and a released VM starts on the
 * next tick, completes two ticks later and is heard from on the tick after. Timed per tick, until
 * the rollout completes. The world is in memory: the stores' deserialisation is not in the figure
 * (the scale issue's aggregates are).
 *
 * <p>Usage: {@code RolloutTickBenchmark [--vms 10000] [--groups 100] [--max 10%] [--report FILE]}:
 * the report's section "Rollout tick" is written (replaced when there is one).
 */
public final class RolloutTickBenchmark {
  static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");

  /** What a run measured. */
  public record Result(
      int vms, int groups, int ticks, int waves, Stats tickMillis, long maxEntries) {}

  public static void main(String[] args) throws Exception {
    int vms = 10_000;
    int groups = 100;
    String max = "10%";
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--vms" -> vms = Integer.parseInt(args[++i]);
        case "--groups" -> groups = Integer.parseInt(args[++i]);
        case "--max" -> max = args[++i];
        case "--report" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    run(vms, groups, max, 1); // warm-up: the JIT
    // Three rollouts measured, their ticks together: one rollout has few ticks (about 40).
    Result r = run(vms, groups, max, 1);
    for (int i = 0; i < 2; i++) {
      Result more = run(vms, groups, max, 1);
      for (double ms : more.tickMillis().samples()) {
        r.tickMillis().add(ms);
      }
    }
    String line =
        String.format(
            "rollout tick, %d VMs (one event each) in %d groups, at most %s per group: %d ticks"
                + " each, %d waves, ledger at most %d entries; per tick, 3 rollouts: %s",
            r.vms(),
            r.groups(),
            max,
            r.ticks(),
            r.waves(),
            r.maxEntries(),
            r.tickMillis().summary());
    System.out.println(line);
    if (out != null) {
      section(out, r, max);
    }
  }

  static final String HEADING = "## Rollout tick";

  /** Writes the report's "Rollout tick" section, replacing the one there. */
  static void section(Path report, Result r, String max) throws java.io.IOException {
    String text =
        String.format(
            "%s%n%nWritten by `benchmarks/run-rollout-tick.sh` on %s (%d CPUs): one rollout of"
                + " %,d VMs (one event each) in %d groups (scale sets), at most %s unavailable per"
                + " group, ticked as the rollout processor ticks it (ledger loaded, moved on with"
                + " the views, the planner's step, the ledger's changes written back) until it"
                + " completed: %d ticks, %d waves, at most %,d ledger entries; after a warm-up"
                + " rollout, three rollouts measured, their %d ticks together. The world is in"
                + " memory: reading the views from the stores is not in the figure.%n%n"
                + "| measure | target | measured | |%n|---|---|---|---|%n"
                + "| a tick, p99 | <= 100 ms | %.1f ms | %s |%n| a tick, max | | %.1f ms | |%n"
                + "| a tick, p50 | | %.1f ms | |%n",
            HEADING,
            Instant.now(),
            Runtime.getRuntime().availableProcessors(),
            r.vms(),
            r.groups(),
            max,
            r.ticks(),
            r.waves(),
            r.maxEntries(),
            r.tickMillis().count(),
            r.tickMillis().percentile(99),
            r.tickMillis().percentile(99) <= 100 ? "PASS" : "FAIL",
            r.tickMillis().max(),
            r.tickMillis().percentile(50));
    replaceSection(report, HEADING, text);
  }

  /** Writes {@code text} as the report's section under {@code heading}, replacing the one there. */
  static void replaceSection(Path report, String heading, String text) throws java.io.IOException {
    String doc = Files.exists(report) ? Files.readString(report) : "";
    int at = doc.indexOf(heading);
    if (at >= 0) {
      int next = doc.indexOf("\n## ", at + heading.length());
      String body = next >= 0 && !text.endsWith("\n\n") ? text + "\n" : text; // a blank line
      doc = doc.substring(0, at) + body + (next >= 0 ? doc.substring(next + 1) : "");
    } else {
      doc = doc + (doc.isEmpty() || doc.endsWith("\n\n") ? "" : "\n") + text;
    }
    Files.writeString(report, doc);
  }

  /**
   * Runs one rollout to its end.
   *
   * @param divide run at 1/divide of the size (warm-up)
   */
  public static Result run(int vmCount, int groupCount, String max, int divide) {
    int vms = Math.max(groupCount, vmCount / divide);
    GeneratedFleet w = new GeneratedFleet(vms, groupCount);
    RolloutSpec spec =
        new RolloutSpec(
            new ArrayList<>(w.resources.keySet()),
            max,
            List.of("scaleSet"),
            Duration.ZERO,
            Duration.ofHours(1),
            Duration.ofMinutes(2));
    Rollout r =
        RolloutActions.apply(
            null,
            new RolloutCommand(
                "bench", RolloutCommand.CREATE, spec, null, null, "bench", "bench", T0, "api"),
            T0);
    Map<String, LedgerEntry> store = new TreeMap<>();
    Stats millis = new Stats();
    long maxEntries = 0;
    int tick = 0;
    while (r.active() && tick < 100_000) {
      tick++;
      Instant now = T0.plusSeconds(tick);
      w.advance(now);
      long start = System.nanoTime();
      Ledger ledger = new Ledger(new TreeMap<>(store));
      ledger.observe(w, now);
      ledger.constrain(r);
      RolloutPlanner.Step s = RolloutPlanner.step(r, w, ledger, now);
      ledger
          .changes(ledger.touched())
          .forEach(
              (k, v) -> {
                if (v == null) {
                  store.remove(k);
                } else {
                  store.put(k, v);
                }
              });
      millis.add((System.nanoTime() - start) / 1e6);
      maxEntries = Math.max(maxEntries, store.size());
      for (RolloutPlanner.Release release : s.releases()) {
        w.release(release.eventId(), now);
      }
      r = s.rollout();
    }
    if (!r.state().equals(Rollout.COMPLETED)) {
      throw new IllegalStateException(
          "the rollout did not complete: " + r.state() + " " + r.halt());
    }
    return new Result(vms, groupCount, tick, r.waves().size(), millis, maxEntries);
  }

  /**
   * A fleet in memory: VM i is {@code vm-i} in scale set {@code ss-(i % groups)}, with event {@code
   * E-i} listing it. Released events start on the next tick, complete two ticks later, and the VM's
   * agent is heard from on the tick after that.
   */
  static final class GeneratedFleet implements World {
    final Map<String, List<String>> resources = new LinkedHashMap<>();
    final Map<String, Map<String, VmEventState>> states = new HashMap<>();
    final Map<String, String> scaleSet = new HashMap<>();
    final Map<String, Instant> heartbeats = new HashMap<>();
    final Map<String, Instant> released = new HashMap<>();
    final Map<String, Integer> groupSizes = new HashMap<>();

    GeneratedFleet(int vms, int groups) {
      for (int i = 0; i < vms; i++) {
        String vm = "vm-" + i;
        String ss = "ss-" + (i % groups);
        String event = "E-" + i;
        scaleSet.put(vm, ss);
        groupSizes.merge("scaleSet=" + ss, 1, Integer::sum);
        resources.put(event, List.of(vm));
        Map<String, VmEventState> m = new HashMap<>();
        m.put(vm, new VmEventState(vm, vm, "1", ss, "scheduled", null, T0, null));
        states.put(event, m);
        heartbeats.put(vm, T0);
      }
    }

    void release(String eventId, Instant now) {
      released.put(eventId, now);
    }

    /** Moves every released event on by the time since its release. */
    void advance(Instant now) {
      for (Map.Entry<String, Instant> e : released.entrySet()) {
        long ticks = Duration.between(e.getValue(), now).toSeconds();
        String vm = resources.get(e.getKey()).get(0);
        VmEventState s = states.get(e.getKey()).get(vm);
        String status = ticks >= 3 ? "completed" : ticks >= 1 ? "started" : "approved";
        if (!s.status().equals(status)) {
          states
              .get(e.getKey())
              .put(vm, new VmEventState(vm, vm, "1", s.scaleSet(), status, null, now, null));
        }
        if (ticks >= 4) {
          heartbeats.put(vm, now);
        }
      }
    }

    @Override
    public Map<String, VmEventState> eventVms(String eventId) {
      return states.getOrDefault(eventId, Map.of());
    }

    @Override
    public List<String> resources(String eventId) {
      return resources.getOrDefault(eventId, List.of());
    }

    @Override
    public boolean open(String eventId) {
      return eventVms(eventId).values().stream().anyMatch(s -> !s.closed());
    }

    @Override
    public Collection<String> openEvents() {
      List<String> open = new ArrayList<>();
      for (String e : released.keySet()) {
        if (open(e)) {
          open.add(e);
        }
      }
      return open;
    }

    @Override
    public Collection<String> requestedEvents() {
      return released.keySet();
    }

    @Override
    public Optional<Instant> notBefore(String eventId) {
      return Optional.empty();
    }

    @Override
    public Optional<Instant> lastHeartbeat(String vmId) {
      return Optional.ofNullable(heartbeats.get(vmId));
    }

    @Override
    public String attribute(String vmId, String attribute) {
      return switch (attribute) {
        case "scaleSet" -> scaleSet.get(vmId);
        case "zone" -> "1";
        default -> null;
      };
    }

    @Override
    public int groupSize(List<String> groupBy, String group) {
      return groupSizes.getOrDefault(group, 0);
    }

    @Override
    public Optional<Result> unaccepted(String requestId, String vmId) {
      return Optional.empty();
    }
  }
}
