package dev.sebridge.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.state.StateDirectory;
import java.nio.file.Path;
import java.time.Clock;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadingMarkerTest {
  @TempDir Path dir;

  /** A run that started and began reading at {@code position} (its first poll under way). */
  static ReadingMarker readingAt(StateDirectory state, long position) {
    ReadingMarker m = new ReadingMarker(state, "kafka");
    m.start();
    m.reading(position);
    m.polling();
    return m;
  }

  /** Three runs that died reading at {@code position} (none stopped cleanly). */
  static OptionalLong diedThreeTimesAt(StateDirectory state, long position) {
    OptionalLong poison = OptionalLong.empty();
    for (int run = 0; run < ReadingMarker.MAX_CRASHES + 1; run++) {
      ReadingMarker m = new ReadingMarker(state, "kafka");
      poison = m.start();
      m.reading(position);
      m.polling();
    }
    return poison;
  }

  /**
   * An agent that died three times idle at the end of the stream (a VM hard-rebooted by its own
   * maintenance) has no record there to skip: reading goes on from that very position, and a record
   * that later kills it there is counted there. Before, the marker moved one past it, so the deaths
   * of the record that came to that position were counted at the next one: the skip then went past
   * both, and reported the genuine command after the poison as the poison.
   */
  @Test
  void nothingToSkipKeepsThePositionWhereTheNextDeathIsCounted() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      assertThat(diedThreeTimesAt(state, 5)).hasValue(5);
      ReadingMarker m = new ReadingMarker(state, "kafka");
      m.skipped(false);
      m.reading(5);
      m.polling();
      // Three more deaths reading the record that came at 5: the record at 5 is the one skipped.
      assertThat(diedThreeTimesAt(state, 5)).hasValue(5);
    }
  }

  /** A skipped record: reading goes on after it, with no deaths counted. */
  @Test
  void aSkippedRecordMovesThePositionPastIt() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      assertThat(diedThreeTimesAt(state, 5)).hasValue(5);
      ReadingMarker m = new ReadingMarker(state, "kafka");
      m.skipped(true);
      assertThat(m.crashes()).isZero();
      m.stopped();
      assertThat(new ReadingMarker(state, "kafka").start()).isEmpty();
    }
  }

  /** Deaths after a skip, before any read, are counted after the skipped record, not at it. */
  @Test
  void deathsRightAfterASkipAreCountedPastTheSkippedRecord() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      assertThat(diedThreeTimesAt(state, 5)).hasValue(5);
      new ReadingMarker(state, "kafka").skipped(true);
      OptionalLong poison = OptionalLong.empty();
      for (int run = 0; run < ReadingMarker.MAX_CRASHES + 1; run++) {
        ReadingMarker m = new ReadingMarker(state, "kafka");
        poison = m.start();
        m.reading(6); // the first read after the skip, where it dies
        m.polling();
      }
      assertThat(poison).hasValue(6);
    }
  }

  /**
   * Three deaths while idle at the end of the stream (hard resets of a quiet VM) are no record's
   * doing: nothing is counted, so an approval that arrived there meanwhile is read, not skipped.
   */
  @Test
  void deathsWhileIdleAreNotCounted() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      for (int run = 0; run < ReadingMarker.MAX_CRASHES + 1; run++) {
        ReadingMarker m = new ReadingMarker(state, "kafka");
        assertThat(m.start()).isEmpty();
        assertThat(m.crashes()).isZero();
        m.reading(5);
        m.polling();
        m.idle(5);
      }
    }
  }

  /**
   * A record that kills the agent in the read right after an idle one is counted from the next run
   * on, whose first read decides again: one more death, then skipped as usual.
   */
  @Test
  void aRecordThatKillsRightAfterAnIdleReadIsCountedFromTheNextRun() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker first = readingAt(state, 5);
      first.idle(5); // then the record came, and the next read died on it
      OptionalLong poison = OptionalLong.empty();
      for (int run = 0; run < ReadingMarker.MAX_CRASHES + 1; run++) {
        ReadingMarker m = new ReadingMarker(state, "kafka");
        poison = m.start();
        m.reading(5);
        m.polling();
      }
      assertThat(poison).hasValue(5);
    }
  }

  /**
   * The marker is idle only at its own position: the pump marks it there, also after a read behind
   * it that found the end (AgentTest.aSourceAtItsEndBehindTheMarkerMarksItIdleWhereItIs).
   */
  @Test
  void anIdleReadBehindTheMarkerMarksNothing() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker m = readingAt(state, 5);
      m.reading(3); // not further: the marker stays at 5
      m.polling();
      m.idle(3);
      assertThat(new ReadingMarker(state, "kafka").start()).isEmpty();
      ReadingMarker again = new ReadingMarker(state, "kafka");
      assertThat(again.crashes()).as("the death at 5 was counted").isEqualTo(1);
    }
  }

  /** Records handed over after an idle read: a death while they are handled is counted. */
  @Test
  void aDeathHandlingRecordsAfterAnIdleReadIsCounted() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker m = readingAt(state, 5);
      m.idle(5);
      m.busy(); // then handling them killed the agent
      new ReadingMarker(state, "kafka").start();
      assertThat(new ReadingMarker(state, "kafka").crashes()).isEqualTo(1);
    }
  }

  /**
   * A write that fails (a full disk) changes nothing: the same call made again writes the marker.
   * Before, the fields changed first, and the pump's next read at the same position found nothing
   * to record: the file kept the old position, and deaths at the new one were counted at the old.
   * (A directory where the write's temporary file goes makes the write fail, for root too.)
   */
  @Test
  void aCallWhoseWriteFailedWritesWhenMadeAgain() throws Exception {
    java.nio.file.Path blocker = dir.resolve("commands/reading-kafka.tmp");
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker m = readingAt(state, 5);
      java.nio.file.Files.createDirectories(blocker);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> m.reading(6))
          .isInstanceOf(java.io.UncheckedIOException.class);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> m.idle(5))
          .isInstanceOf(java.io.UncheckedIOException.class);
      assertThat(m.position()).as("as written").isEqualTo(5);
      java.nio.file.Files.delete(blocker);
      m.reading(6); // the pump's read, made again
      m.polling();
    }
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker m = new ReadingMarker(state, "kafka");
      m.start(); // a death while reading at 6
      assertThat(m.position()).isEqualTo(6);
      assertThat(m.crashes()).as("counted at 6").isEqualTo(1);
      // Idle at 6, not written: made again, it is.
      java.nio.file.Files.createDirectories(blocker);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> m.idle(6))
          .isInstanceOf(java.io.UncheckedIOException.class);
      java.nio.file.Files.delete(blocker);
      m.idle(6);
    }
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker m = new ReadingMarker(state, "kafka");
      m.start();
      // Written: idle, and the death before cleared (the end was found there); not written, the
      // file would still count it.
      assertThat(m.crashes()).as("died idle: not counted").isZero();
    }
  }

  /**
   * A stop that came before the pump started (its close gave up waiting for the pump's thread)
   * stays a clean stop: the late start records nothing, so the next run counts no death.
   */
  @Test
  void aStartAfterTheStopRecordsNothing() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker m = readingAt(state, 5);
      m.stopped();
      assertThat(m.start()).isEmpty();
      ReadingMarker next = new ReadingMarker(state, "kafka");
      next.start();
      assertThat(next.crashes()).as("no death").isZero();
    }
  }

  /** Two runs that died reading at {@code position}: two deaths counted, the second run's next. */
  private static void diedTwiceAt(StateDirectory state, long position) {
    for (int run = 0; run < 2; run++) {
      ReadingMarker m = readingAt(state, position);
    }
  }

  /**
   * A clean stop before this run read at the position and lived (the source never opened, or its
   * read hung until the stop) keeps the deaths counted there: one more death, and the record is
   * skipped. Before, any clean stop forgave them, so a poison that kills the agent two times in
   * three was never skipped.
   */
  @Test
  void aStopBeforeAReadAtThePositionLivedKeepsItsDeaths() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      diedTwiceAt(state, 5);
      ReadingMarker stoppedEarly = readingAt(state, 3);
      stoppedEarly.lived(5); // records before the position: they say nothing of the record there
      stoppedEarly.stopped();
      ReadingMarker next = new ReadingMarker(state, "kafka");
      assertThat(next.start()).as("a clean stop is no death").isEmpty();
      assertThat(next.crashes()).isEqualTo(2);
      next.reading(5); // and it dies there
      next.polling();
      assertThat(new ReadingMarker(state, "kafka").start()).hasValue(5);
    }
  }

  /** A run that read at the position and lived, then stopped cleanly: its deaths are forgiven. */
  @Test
  void aStopAfterAReadAtThePositionLivedForgivesItsDeaths() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      diedTwiceAt(state, 5);
      ReadingMarker m = readingAt(state, 5);
      m.lived(6);
      m.stopped();
      ReadingMarker next = new ReadingMarker(state, "kafka");
      assertThat(next.start()).isEmpty();
      assertThat(next.crashes()).isZero();
    }
  }

  /**
   * A stop before the marker was started (the agent stopped before its identity was known) writes
   * nothing: the last run's death is still counted at the next start. Before, the stop marked that
   * run stopped and forgave every death.
   */
  @Test
  void aStopBeforeTheStartKeepsTheLastRunsDeath() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      diedTwiceAt(state, 5);
      new ReadingMarker(state, "kafka").stopped();
      ReadingMarker next = new ReadingMarker(state, "kafka");
      next.start();
      assertThat(next.crashes()).as("the second run's death counted").isEqualTo(2);
    }
  }

  /**
   * A run that started behind the position and read past it (one batch from before the position to
   * after it, handled, then the stop) lived through the record there: its deaths are forgiven.
   */
  @Test
  void aReadFromBehindThePositionThatPassedItForgivesItsDeaths() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      diedTwiceAt(state, 5);
      ReadingMarker m = readingAt(state, 3);
      m.lived(8);
      m.stopped();
      assertThat(new ReadingMarker(state, "kafka").crashes()).isZero();
    }
  }

  /**
   * A run that found the end of the stream at the position (also from behind it: the pump marks the
   * marker idle at its own position) found no record there: a clean stop forgives the deaths.
   */
  @Test
  void aStopAfterTheEndWasFoundAtThePositionForgivesItsDeaths() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      diedTwiceAt(state, 5);
      ReadingMarker m = readingAt(state, 3);
      m.idle(5);
      m.stopped();
      assertThat(new ReadingMarker(state, "kafka").crashes()).isZero();
    }
  }

  /**
   * A quiet VM hard-reset again before its next run's first read (its source still connecting, or a
   * broker down) read no record: the marker stays idle and the death is not counted. The first read
   * of a run decides again: a death after it is counted.
   */
  @Test
  void aDeathBeforeTheRunsFirstReadIsNotCountedWhileIdle() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker quiet = readingAt(state, 5);
      quiet.idle(5);
      for (int run = 0; run < ReadingMarker.MAX_CRASHES + 1; run++) {
        assertThat(new ReadingMarker(state, "kafka").start()).isEmpty(); // died connecting
      }
      ReadingMarker m = new ReadingMarker(state, "kafka");
      m.start();
      assertThat(m.crashes()).isZero();
      m.reading(5); // then died in the read
      m.polling();
      ReadingMarker next = new ReadingMarker(state, "kafka");
      next.start();
      assertThat(next.crashes()).isEqualTo(1);
    }
  }

  /**
   * Deaths before a run's first read (its broker down: the source cannot even tell where it reads)
   * read no record, idle or not: only the death that handled a command counts. Before, a VM whose
   * broker was unreachable while it was hard-reset twice skipped that command as poison.
   */
  @Test
  void deathsBeforeARunsFirstReadAreNotCounted() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker handling = readingAt(state, 50);
      handling.busy(); // a command handed over; the VM hard-reset while it is handled
      for (int run = 0; run < ReadingMarker.MAX_CRASHES + 1; run++) {
        assertThat(new ReadingMarker(state, "kafka").start()).isEmpty(); // broker down; reset
      }
      ReadingMarker m = new ReadingMarker(state, "kafka");
      m.start();
      assertThat(m.crashes()).as("the death handling the command").isEqualTo(1);
    }
  }

  /**
   * Finding the end of the stream at the position clears the deaths counted there: there was no
   * record to die of. A command that comes there later starts with none; before, it inherited them
   * and one more death (a hard reset while it was handled: the reboot it approved) skipped it.
   */
  @Test
  void findingTheEndAtThePositionClearsItsDeaths() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      diedTwiceAt(state, 10); // found nothing, and the source could not tell it was the end
      ReadingMarker m = readingAt(state, 10);
      m.idle(10);
      m.busy(); // the command came, and the VM was reset while it was handled
      ReadingMarker next = new ReadingMarker(state, "kafka");
      assertThat(next.start()).isEmpty();
      assertThat(next.crashes()).isEqualTo(1);
    }
  }

  /**
   * A source that cannot tell its read position before its first poll (Event Hubs with no stored
   * position reads from a lookback) and dies in that poll, decoding a record: counted at the
   * marker's position, and skipped there after three deaths. Only a death before the poll is not
   * counted.
   */
  @Test
  void aDeathInAPollWithoutAReadPositionIsCounted() {
    try (StateDirectory state = StateDirectory.open(dir, Clock.systemUTC())) {
      ReadingMarker first = new ReadingMarker(state, "eventhubs");
      first.start();
      first.reading(5);
      first.stopped();
      OptionalLong poison = OptionalLong.empty();
      for (int run = 0; run < ReadingMarker.MAX_CRASHES + 1; run++) {
        ReadingMarker m = new ReadingMarker(state, "eventhubs");
        poison = m.start();
        m.polling(); // no read position to record; the poll dies decoding
      }
      assertThat(poison).hasValue(5);
    }
  }
}
