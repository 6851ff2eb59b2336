package dev.sebridge.fleet.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/** A rollout's entries are keyed by (VM, event), whatever map they come in. */
class RolloutKeysTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  @Property(tries = 500)
  void keyedByAnswersWhatComparingWithTheKeyDoes(
      @ForAll @AlphaChars @NumericChars @StringLength(max = 6) String vmId,
      @ForAll @AlphaChars @StringLength(max = 6) String eventId,
      @ForAll @AlphaChars @NumericChars @Chars({'|', '-'}) @StringLength(max = 14) String other) {
    RolloutVm v = RolloutVm.pending(vmId, "web", eventId, "all");
    assertThat(v.keyedBy(v.key())).isTrue();
    assertThat(v.keyedBy(other)).isEqualTo(other.equals(v.key()));
    assertThat(v.keyedBy(vmId + "|" + eventId)).isEqualTo((vmId + "|" + eventId).equals(v.key()));
  }

  @Test
  void anEntryWithoutAnEventIsKeyedByItsVm() {
    RolloutVm v = RolloutVm.pending("vm-1", "web-1", null, "all");
    assertThat(v.keyedBy("vm-1")).isTrue();
    assertThat(v.keyedBy("vm-1|")).isFalse();
  }

  @Test
  void anOldRecordKeyedByVmIdIsKeyedAgain() {
    Map<String, RolloutVm> old = new TreeMap<>();
    old.put("vm-1", RolloutVm.pending("vm-1", "web-1", "E-1", "all"));
    old.put("vm-2", RolloutVm.pending("vm-2", "web-2", "E-2", "all"));
    assertThat(rollout(old).vms()).containsOnlyKeys("vm-1|e-1", "vm-2|e-2");
  }

  @Test
  void aKeyWhoseEventIsNotInLowerCaseIsKeyedAgain() {
    Map<String, RolloutVm> m = new TreeMap<>();
    m.put("vm-1|E-1", RolloutVm.pending("vm-1", "web-1", "E-1", "all"));
    m.put("vm-2|e-2", RolloutVm.pending("vm-2", "web-2", "E-2", "all"));
    assertThat(rollout(m).vms()).containsOnlyKeys("vm-1|e-1", "vm-2|e-2");
  }

  @Test
  void aStepsEntriesAreTakenAsTheyAreAndStaySorted() {
    Map<String, RolloutVm> m = new TreeMap<>();
    for (int i = 0; i < 50; i++) {
      RolloutVm v = RolloutVm.pending("vm-" + i, "web-" + i, "E-" + (i % 7), "all");
      m.put(v.key(), v);
    }
    Rollout r = rollout(m);
    assertThat(r.vms()).isEqualTo(m);
    assertThat(List.copyOf(r.vms().keySet())).isSorted();
    // A rollout's own entries go into the next one the same.
    assertThat(rollout(r.vms()).vms()).isEqualTo(m);
  }

  private static Rollout rollout(Map<String, RolloutVm> vms) {
    return new Rollout(
        "r",
        new RolloutSpec(List.of("E-1"), "10%", List.of(), Duration.ZERO, Duration.ofMinutes(5)),
        "why",
        "me",
        "api",
        T0,
        Rollout.RUNNING,
        null,
        Map.of(),
        vms,
        List.of(),
        List.of(),
        Map.of());
  }
}
