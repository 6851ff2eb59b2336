package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A view mark as the page carries it: read back as written, anything else refused with a reason.
 */
class ViewMarkTest {
  @Test
  void aMarkIsReadAsItIsWritten() {
    ViewMark m =
        new ViewMark(
            Map.of(
                "policies-view", Map.of(1, 14L),
                "events-view", Map.of(1, 790L, 0, 812L),
                "inventory-view", Map.of()));
    assertThat(m.toString()).isEqualTo("events-view@0:812,1:790;policies-view@1:14");
    assertThat(ViewMark.parse(m.toString()).toString()).isEqualTo(m.toString());
    assertThat(ViewMark.parse("")).isEqualTo(ViewMark.NONE);
    assertThat(ViewMark.NONE.toString()).isEmpty();
    assertThat(ViewMark.parse("vms-view@0:" + Long.MAX_VALUE).offsets())
        .isEqualTo(Map.of("vms-view", Map.of(0, Long.MAX_VALUE)));
  }

  @Test
  void whatIsNotAMarkIsRefusedWithTheReason() {
    Map<String, String> bad =
        Map.of(
            "events-view", "not a view mark's store",
            "Events@0:1", "not a view mark's store",
            "events-view@0:1;events-view@1:2", "names events-view twice",
            "events-view@0:1,0:2", "names partition 0 of events-view twice",
            "events-view@0:-1", "partition:offset",
            "events-view@", "partition:offset",
            "events-view@0:1,", "partition:offset",
            "events-view@0:99999999999999999999", "partition:offset",
            "events-view@0:9999999999999999999", "an offset out of range",
            "events-view@0:1;", "not a view mark's store");
    bad.forEach(
        (text, reason) ->
            assertThatThrownBy(() -> ViewMark.parse(text))
                .as(text)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(reason));
    assertThatThrownBy(() -> ViewMark.parse("x".repeat(ViewMark.MAX_LENGTH + 1)))
        .hasMessageContaining("at most");
  }
}
