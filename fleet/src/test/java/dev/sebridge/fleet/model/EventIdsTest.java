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
