package dev.sebridge.fleet.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.VmEventState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The rollout's safety, checked against a simulated fleet: random groups and sizes, events of one
 * to three VMs, random limits, agents that reject, VMs that never come back, NotBefore starting
 * events on its own, fleet instances killed mid-step (the step's state and approvals are lost
 * together, as with exactly-once processing), views that lag a step behind, and an operator who
 * resumes or skips when the rollout halts. The planner under test is the one the service runs.
 */
class RolloutSafetyTest {
  private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");

  @Property(tries = 300)
  void approvedButNotBackNeverExceedsTheLimit(
      @ForAll("seed") long seed,
      @ForAll @IntRange(min = 1, max = 40) int vms,
      @ForAll @IntRange(min = 1, max = 4) int zones,
      @ForAll @IntRange(min = 0, max = 3) int limitKind) {
    Random rnd = new Random(seed);
    Fleet fleet = new Fleet(rnd, vms, zones);
    String max =
        switch (limitKind) {
          case 0 -> "1";
          case 1 -> Integer.toString(1 + rnd.nextInt(3));
          case 2 -> (10 + rnd.nextInt(41)) + "%";
          default -> "100%";
        };
    List<String> groupBy = rnd.nextBoolean() ? List.of("zone") : List.of();
    RolloutSpec spec =
        new RolloutSpec(
            fleet.eventIds(),
            max,
            groupBy,
            Duration.ofSeconds(rnd.nextInt(4)),
            Duration.ofSeconds(5 + rnd.nextInt(30)));
    Rollout committed =
        RolloutActions.apply(
            null,
            new RolloutCommand(
                "r1", RolloutCommand.CREATE, spec, null, null, "test", "alice", T0, "api"),
            T0);
    Map<String, Integer> approvals = new HashMap<>();
    Map<String, LedgerEntry> ledger = Map.of();
    for (int tick = 1; tick <= 600 && committed.active(); tick++) {
      Instant now = T0.plusSeconds(tick);
      fleet.advance(tick);
      World view = fleet.view(tick - 1);
      Ledger l = new Ledger(ledger);
      l.observe(view, now);
      l.constrain(committed);
      RolloutPlanner.Step step = RolloutPlanner.step(committed, view, l, now);
      if (committed.halt() != null) {
        assertThat(step.releases()).as("a halted rollout approves nothing new").isEmpty();
      }
      if (rnd.nextInt(10) == 0) {
        continue; // the instance died before the commit: neither the state nor the approvals
      }
      committed = step.rollout();
      ledger = Map.copyOf(l.entries());
      for (RolloutPlanner.Release r : step.releases()) {
        for (String vm : fleet.vmsOf(r.eventId())) {
          approvals.merge(vm, 1, Integer::sum);
        }
        fleet.approve(r.eventId(), tick);
      }
      fleet.assertWithinLimits(committed, tick, spec.settle());
      if (committed.halt() != null && rnd.nextInt(3) == 0) {
        committed = operator(committed, rnd, now);
      }
    }
    assertThat(approvals.values()).as("every VM approved at most once").allMatch(n -> n == 1);
  }

  @Property(tries = 50)
  void anEventLargerThanItsGroupsLimitHaltsInsteadOfBeingApproved(
      @ForAll @IntRange(min = 2, max = 6) int size) {
    Fleet fleet = Fleet.oneEvent(size);
    RolloutSpec spec =
        new RolloutSpec(fleet.eventIds(), "1", List.of(), Duration.ZERO, Duration.ofMinutes(1));
    Rollout r =
        RolloutActions.apply(
            null,
            new RolloutCommand(
                "r2", RolloutCommand.CREATE, spec, null, null, "t", "alice", T0, "api"),
            T0);
    RolloutPlanner.Step s =
        RolloutPlanner.step(r, fleet.view(0), Ledger.empty(), T0.plusSeconds(1));
    assertThat(s.releases()).isEmpty();
    assertThat(s.rollout().state()).isEqualTo(Rollout.HALTED);
    assertThat(s.rollout().halt().reason()).contains("would release " + size + " VMs");
  }

  private static Rollout operator(Rollout r, Random rnd, Instant now) {
    Rollout.Halt h = r.halt();
    RolloutCommand c =
        h.vmId() == null
            ? new RolloutCommand(
                r.id(), RolloutCommand.SKIP, null, null, h.eventId(), "op", "bob", now, null)
            : rnd.nextBoolean()
                ? new RolloutCommand(
                    r.id(), RolloutCommand.RESUME, null, null, null, "op", "bob", now, null)
                : new RolloutCommand(
                    r.id(), RolloutCommand.SKIP, null, h.vmId(), null, "op", "bob", now, null);
    return RolloutActions.apply(r, c, now);
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<Long> seed() {
    return net.jqwik.api.Arbitraries.longs();
  }

  /** The simulated fleet: the truth, and views of it as of a tick. */
  static final class Fleet {
    final Map<String, Sim> vms = new LinkedHashMap<>();
    final Map<String, List<String>> events = new LinkedHashMap<>();
    final Map<String, Integer> platformAt = new HashMap<>();
    final Map<String, Integer> zoneSizes = new HashMap<>();
    int fleetSize;

    static final class Sim {
      String id;
      String zone;
      String eventId;
      int startDelay;
      int duration;
      boolean stuck;
      boolean silentAfter;
      boolean rejects;
      int heartbeatDelay;
      Integer releasedAt;
      boolean approvedByRollout;
    }

    Fleet(Random rnd, int n, int zones) {
      int e = 0;
      int i = 0;
      while (i < n) {
        String eventId = "ev-" + (e++);
        int size = Math.min(n - i, 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 3 : 1));
        List<String> members = new ArrayList<>();
        for (int k = 0; k < size; k++, i++) {
          Sim s = new Sim();
          s.id = "vm-" + i;
          s.zone = Integer.toString(1 + rnd.nextInt(zones));
          s.eventId = eventId;
          s.startDelay = 1 + rnd.nextInt(5);
          s.duration = 1 + rnd.nextInt(10);
          s.stuck = rnd.nextInt(25) == 0;
          s.silentAfter = rnd.nextInt(25) == 0;
          s.rejects = rnd.nextInt(20) == 0;
          s.heartbeatDelay = rnd.nextInt(5);
          vms.put(s.id, s);
          members.add(s.id);
          zoneSizes.merge(s.zone, 1, Integer::sum);
        }
        events.put(eventId, members);
        if (rnd.nextInt(5) == 0) {
          platformAt.put(eventId, 5 + rnd.nextInt(100));
        }
      }
      // VMs of the fleet with no maintenance: they count in the groups' sizes
      int others = rnd.nextInt(n + 1);
      for (int k = 0; k < others; k++) {
        zoneSizes.merge(Integer.toString(1 + rnd.nextInt(zones)), 1, Integer::sum);
      }
      fleetSize = n + others;
    }

    static Fleet oneEvent(int size) {
      Fleet f = new Fleet(new Random(1), 0, 1);
      List<String> members = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        Sim s = new Sim();
        s.id = "vm-" + i;
        s.zone = "1";
        s.eventId = "big";
        s.duration = 1;
        s.startDelay = 1;
        f.vms.put(s.id, s);
        members.add(s.id);
      }
      f.events.put("big", members);
      f.zoneSizes.put("1", size);
      f.fleetSize = size;
      return f;
    }

    List<String> eventIds() {
      return List.copyOf(events.keySet());
    }

    List<String> vmsOf(String eventId) {
      return events.get(eventId);
    }

    /** NotBefore passing releases an event without anyone's approval. */
    void advance(int tick) {
      platformAt.forEach(
          (eventId, at) -> {
            if (at == tick) {
              release(eventId, tick, false);
            }
          });
    }

    void approve(String eventId, int tick) {
      release(eventId, tick, true);
    }

    private void release(String eventId, int tick, boolean byRollout) {
      List<Sim> members = events.get(eventId).stream().map(vms::get).toList();
      boolean anyAccepts = !byRollout || members.stream().anyMatch(s -> !s.rejects);
      for (Sim s : members) {
        if (s.releasedAt == null && anyAccepts) {
          s.releasedAt = tick;
        }
        s.approvedByRollout |= byRollout;
      }
    }

    int startAt(Sim s) {
      return s.releasedAt + s.startDelay;
    }

    Integer completeAt(Sim s) {
      return s.stuck ? null : startAt(s) + s.duration;
    }

    Integer heartbeatBackAt(Sim s) {
      Integer c = completeAt(s);
      return c == null || s.silentAfter ? null : c + s.heartbeatDelay;
    }

    /**
     * Approved by the rollout and not back (completed, heard from after, settled): at most the
     * limit.
     */
    void assertWithinLimits(Rollout r, int tick, Duration settle) {
      Map<String, Integer> out = new HashMap<>();
      for (Sim s : vms.values()) {
        if (!s.approvedByRollout || s.releasedAt == null) {
          continue;
        }
        Integer back = heartbeatBackAt(s);
        if (back == null || tick < back + settle.toSeconds()) {
          RolloutVm v = r.vms().get(RolloutVm.key(s.id, s.eventId));
          out.merge(v.group(), 1, Integer::sum);
        }
      }
      out.forEach(
          (group, n) ->
              assertThat(n)
                  .as("approved but not back in %s at tick %d", group, tick)
                  .isLessThanOrEqualTo(r.groupLimits().get(group)));
    }

    World view(int tick) {
      Instant at = T0.plusSeconds(tick);
      return new World() {
        @Override
        public Map<String, VmEventState> eventVms(String eventId) {
          Map<String, VmEventState> m = new LinkedHashMap<>();
          for (String id : events.getOrDefault(eventId, List.of())) {
            Sim s = vms.get(id);
            String status = "scheduled";
            Instant since = T0;
            if (s.releasedAt != null && s.releasedAt <= tick && tick >= startAt(s)) {
              Integer c = completeAt(s);
              status = c != null && tick >= c ? "completed" : "started";
              since = T0.plusSeconds(c != null && tick >= c ? c : startAt(s));
            }
            m.put(id, new VmEventState(id, id, s.zone, null, status, null, since, null));
          }
          return m;
        }

        @Override
        public List<String> resources(String eventId) {
          return events.getOrDefault(eventId, List.of());
        }

        @Override
        public boolean open(String eventId) {
          return eventVms(eventId).values().stream().anyMatch(s -> !s.closed());
        }

        @Override
        public java.util.Collection<String> openEvents() {
          return events.keySet().stream().filter(this::open).toList();
        }

        @Override
        public java.util.Collection<String> requestedEvents() {
          return events.keySet().stream()
              .filter(e -> events.get(e).stream().anyMatch(id -> vms.get(id).approvedByRollout))
              .toList();
        }

        @Override
        public Optional<Instant> notBefore(String eventId) {
          return Optional.empty();
        }

        @Override
        public Optional<Instant> lastHeartbeat(String vmId) {
          Sim s = vms.get(vmId);
          Integer back = s.releasedAt == null ? null : heartbeatBackAt(s);
          if (back != null && tick >= back) {
            return Optional.of(at);
          }
          return Optional.of(s.releasedAt == null ? at : T0.plusSeconds(s.releasedAt));
        }

        @Override
        public String attribute(String vmId, String attribute) {
          return attribute.equals("zone") ? vms.get(vmId).zone : null;
        }

        @Override
        public int groupSize(List<String> groupBy, String group) {
          return groupBy.isEmpty() ? fleetSize : zoneSizes.getOrDefault(group.substring(5), 0);
        }

        @Override
        public Optional<Result> unaccepted(String requestId, String vmId) {
          Sim s = vms.get(vmId); // (null for the key of a VM acknowledged for, name:<name>)
          if (s == null || !s.approvedByRollout) {
            return Optional.empty();
          }
          return s.rejects
              ? Optional.of(new Result("rejected", "policy-denied: not now"))
              : Optional.empty();
        }
      };
    }
  }
}
