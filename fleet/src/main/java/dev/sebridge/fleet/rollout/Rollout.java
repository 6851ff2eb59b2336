package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A rollout and where it is: its VMs, its waves, and why it stopped if it did. Kept in the rollout
 * processor's stores (changelogged Kafka Streams stores) as a header and an entry per VM and event
 * ({@link RolloutParts}), so an instance that takes over continues from the same state.
 *
 * @param id the rollout's id
 * @param spec how it approves
 * @param reason why (goes into every command's reason)
 * @param requestedBy who started it (every command's requestedBy)
 * @param origin {@code api}, or {@code policy:<rule>@v<version>}
 * @param createdAt when
 * @param state running, halted, completed or aborted
 * @param halt why it is halted, or null
 * @param groupLimits per group: the most VMs that may be unavailable at once
 * @param vms per VM and event: {@link RolloutVm#key(String, String)}, {@code <vmId>|<eventId>} (a
 *     VM with two events of the rollout has two entries)
 * @param waves what each wave approved
 * @param history operators' actions (resume, skip, abort) and halts
 * @param unreported per event of the rollout that lists VMs which have not reported it: since when
 *     (the event is held until they report; past the spec's reportGrace the rollout halts)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Rollout(
    String id,
    RolloutSpec spec,
    String reason,
    String requestedBy,
    String origin,
    Instant createdAt,
    State state,
    Halt halt,
    Map<String, Integer> groupLimits,
    Map<String, RolloutVm> vms,
    List<Wave> waves,
    List<Entry> history,
    Map<String, Instant> unreported) {

  /** Where a rollout is; written in lower case. */
  public enum State {
    /** stepping: approving what fits */
    RUNNING,
    /** stopped by a failure, a timeout or a size limit: an operator resumes, skips or aborts */
    HALTED,
    /** every VM back or skipped (API rollouts; a policy's rollout never completes) */
    COMPLETED,
    /** stopped by an operator, for good */
    ABORTED;

    @com.fasterxml.jackson.annotation.JsonValue
    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    @com.fasterxml.jackson.annotation.JsonCreator
    public static State of(String s) {
      return valueOf(s.toUpperCase(java.util.Locale.ROOT));
    }
  }

  public static final State RUNNING = State.RUNNING;
  public static final State HALTED = State.HALTED;
  public static final State COMPLETED = State.COMPLETED;
  public static final State ABORTED = State.ABORTED;

  /**
   * The most entries (a VM per event) one rollout tracks: a bound on a step's work (a rollout is
   * stored in parts, {@link RolloutParts}, so no record grows with it). Past it, VMs do not join
   * and the rollout halts saying so: start another rollout for the rest.
   */
  public static final int MAX_VMS = 20_000;

  public Rollout {
    // Unmodifiable: the rollouts task keeps the rollouts it read as objects (RolloutStore).
    groupLimits = Collections.unmodifiableMap(limits(groupLimits));
    // Keyed by (VM, event) whatever the caller used: a record written when entries were keyed by
    // vmId alone reads as the same entries.
    vms = Collections.unmodifiableSortedMap(keyed(vms));
    waves = waves == null ? List.of() : List.copyOf(waves);
    history = history == null ? List.of() : List.copyOf(history);
    unreported =
        Collections.unmodifiableMap(
            unreported == null ? new TreeMap<>() : new TreeMap<>(unreported));
  }

  /**
   * The limits by group as groups are named now ({@link ListedVms#normalGroup}): a record written
   * before groups' values were in lower case may hold one group spelt two ways, which is one group
   * with the smaller of the two limits.
   */
  private static TreeMap<String, Integer> limits(Map<String, Integer> groupLimits) {
    TreeMap<String, Integer> out = new TreeMap<>();
    if (groupLimits != null) {
      groupLimits.forEach((g, n) -> out.merge(ListedVms.normalGroup(g), n, Math::min));
    }
    return out;
  }

  /**
   * The entries keyed by (VM, event), in key order: copied as they are when they are (a step's
   * entries, thousands of them each second), keyed again when they are not (an old record).
   */
  private static TreeMap<String, RolloutVm> keyed(Map<String, RolloutVm> vms) {
    if (vms == null) {
      return new TreeMap<>();
    }
    if (vms instanceof SortedMap<String, RolloutVm> sorted
        && sorted.comparator() == null
        && sorted.entrySet().stream().allMatch(e -> e.getValue().keyedBy(e.getKey()))) {
      return new TreeMap<>(sorted);
    }
    TreeMap<String, RolloutVm> byKey = new TreeMap<>();
    vms.values().forEach(v -> byKey.put(v.key(), v));
    return byKey;
  }

  /** A rollout no event of which waits for unreported VMs. */
  public Rollout(
      String id,
      RolloutSpec spec,
      String reason,
      String requestedBy,
      String origin,
      Instant createdAt,
      State state,
      Halt halt,
      Map<String, Integer> groupLimits,
      Map<String, RolloutVm> vms,
      List<Wave> waves,
      List<Entry> history) {
    this(
        id,
        spec,
        reason,
        requestedBy,
        origin,
        createdAt,
        state,
        halt,
        groupLimits,
        vms,
        waves,
        history,
        Map.of());
  }

  /**
   * Whether this rollout holds the event back: it is active, the event is one of its own, and it
   * has neither released the event nor had it skipped or canceled. Another path that approves it
   * needs an explicit override.
   */
  public boolean holds(String eventId) {
    if (!active() || spec.eventIds().stream().noneMatch(e -> e.equalsIgnoreCase(eventId))) {
      return false;
    }
    return vms.values().stream()
        .filter(v -> v.eventId().equalsIgnoreCase(eventId))
        .allMatch(v -> v.phase().equals(RolloutVm.PENDING));
  }

  /** Whether the rollout has an entry for this VM, for any of its events. */
  public boolean hasVm(String vmId) {
    return vms.values().stream().anyMatch(v -> v.vmId().equals(vmId));
  }

  /**
   * The same rollout with these limits recorded, each the smaller of the recorded and the given (a
   * recorded limit only goes down; a group not recorded yet is added); this one when none changes.
   */
  public Rollout recording(Map<String, Integer> limits) {
    if (limits.isEmpty()) {
      return this;
    }
    TreeMap<String, Integer> merged = new TreeMap<>(groupLimits);
    limits.forEach((g, n) -> merged.merge(ListedVms.normalGroup(g), n, Math::min));
    return merged.equals(groupLimits) ? this : with(merged, history);
  }

  /** The same rollout with this history. */
  Rollout withHistory(List<Entry> history) {
    return with(groupLimits, history);
  }

  private Rollout with(Map<String, Integer> groupLimits, List<Entry> history) {
    return new Rollout(
        id,
        spec,
        reason,
        requestedBy,
        origin,
        createdAt,
        state,
        halt,
        groupLimits,
        vms,
        waves,
        history,
        unreported);
  }

  @JsonIgnore
  public boolean active() {
    return state.equals(RUNNING) || state.equals(HALTED);
  }

  /** Entries (a VM per event) by phase. */
  public Map<String, Integer> counts() {
    Map<String, Integer> c = new TreeMap<>();
    vms.values().forEach(v -> c.merge(v.phase().toString(), 1, Integer::sum));
    return c;
  }

  /**
   * Why a rollout halted.
   *
   * @param vmId the VM, or null when an event as a whole cannot be approved
   * @param eventId the event
   * @param reason what happened
   * @param at when
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Halt(String vmId, String eventId, String reason, Instant at) {
    public Halt {
      reason = capped(reason);
    }
  }

  /**
   * The most characters of a halt's reason or an action's detail (a halt naming the unreported VMs
   * of many events, a skip of many VMs): past it, the text ends with how much was left out. It
   * bounds the header: 200 actions and a halt stay well under 1 MB.
   */
  public static final int MAX_TEXT = 1_000;

  static String capped(String s) {
    if (s == null || s.length() <= MAX_TEXT) {
      return s;
    }
    int cut = MAX_TEXT - 40;
    return s.substring(0, cut) + "... (" + (s.length() - cut) + " more characters)";
  }

  /**
   * One wave: the events approved together and the VMs they released.
   *
   * @param number 1, 2, ...
   * @param at when
   * @param eventIds the events approved
   * @param vmIds the VMs of the rollout they released
   */
  public record Wave(int number, Instant at, List<String> eventIds, List<String> vmIds) {}

  /**
   * Something that happened to the rollout.
   *
   * @param at when
   * @param by who (an operator's principal, or {@code fleet})
   * @param action created, halted, resumed, skipped, aborted, completed
   * @param detail the reason or what was skipped
   */
  public record Entry(Instant at, String by, String action, String detail) {
    public Entry {
      detail = capped(detail);
    }
  }
}
