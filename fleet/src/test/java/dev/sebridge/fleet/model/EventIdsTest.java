package dev.sebridge.fleet.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** Isolated: the memory is one for the whole JVM, and other classes' steps use it. */
@org.junit.jupiter.api.parallel.Isolated
class EventIdsTest {
  @Property(tries = 500)
  void anIdIsWhatToLowerCaseGives(@ForAll String id) {
    assertThat(EventIds.lower(id)).isEqualTo(id.toLowerCase(Locale.ROOT));
    assertThat(EventIds.lower(id)).isEqualTo(id.toLowerCase(Locale.ROOT)); // remembered, same
  }

  @Property(tries = 1000)
  void endsWithLowerIsWhatComparingWithTheLowerCaseGives(
      @ForAll String prefix, @ForAll String id, @ForAll boolean lowered, @ForAll String other) {
    // (arbitrary chars: 'İ' lowers to two chars, the Kelvin sign to 'k')
    String s = prefix + (lowered ? id.toLowerCase(Locale.ROOT) : other);
    int from = prefix.length();
    assertThat(EventIds.endsWithLower(s, from, id))
        .isEqualTo(s.substring(from).equals(id.toLowerCase(Locale.ROOT)));
    assertThat(EventIds.endsWithLower(s, from, "C7061BAC-AFDC"))
        .isEqualTo(s.substring(from).equals("c7061bac-afdc"));
  }

  /** GUIDs in any case, and keys that differ from their lower case in one place or in length. */
  @Property(tries = 1000)
  void endsWithLowerOnAsciiIdsIsWhatComparingWithTheLowerCaseGives(
      @ForAll
          @net.jqwik.api.constraints.Chars({'a', 'B', 'c', 'D', '0', '-', '|'})
          @net.jqwik.api.constraints.StringLength(max = 8)
          String id,
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 8) int at,
      @ForAll @net.jqwik.api.constraints.Chars({'a', 'b', 'B', '0', '-'}) char changed,
      @ForAll boolean longer) {
    String lower = id.toLowerCase(Locale.ROOT);
    String s = "vm-1|" + lower;
    if (at < lower.length()) {
      s = "vm-1|" + lower.substring(0, at) + changed + lower.substring(at + 1);
    }
    if (longer) {
      s = s + changed;
    }
    assertThat(EventIds.endsWithLower(s, 5, id)).isEqualTo(s.substring(5).equals(lower));
  }

  @Test
  void endsWithLowerOutsideAscii() {
    assertThat(EventIds.endsWithLower("vm|i\u0307d", 3, "\u0130D")).isTrue();
    assertThat(EventIds.endsWithLower("vm|kd", 3, "\u212AD")).isTrue();
    assertThat(EventIds.endsWithLower("vm|id", 3, "\u0130D")).isFalse();
    assertThat(EventIds.endsWithLower("vm|e-1", 3, "E-1")).isTrue();
    assertThat(EventIds.endsWithLower("vm|E-1", 3, "E-1")).isFalse();
    assertThat(EventIds.endsWithLower("vm|e-1x", 3, "E-1")).isFalse();
  }

  @Test
  void anIdInLowerCaseIsNotRemembered() {
    int before = EventIds.remembered();
    String id = "c7061bac-afdc-4513-b24b-aa5f13a16123";
    assertThat(EventIds.lower(id)).isSameAs(id);
    assertThat(EventIds.remembered()).isEqualTo(before);
  }

  @Test
  void theMemoryNeverHoldsMoreThanItsBound() {
    boolean emptied = false;
    int last = EventIds.remembered();
    for (int i = 0; i < EventIds.KEPT + 100; i++) {
      String id = String.format("%08X-AFDC-4513-B24B-AA5F13A16123", i);
      assertThat(EventIds.lower(id)).isEqualTo(id.toLowerCase(Locale.ROOT));
      int now = EventIds.remembered();
      assertThat(now).isLessThanOrEqualTo(EventIds.KEPT);
      emptied |= now < last;
      last = now;
    }
    assertThat(emptied).as("emptied whole once full").isTrue();
  }
}
