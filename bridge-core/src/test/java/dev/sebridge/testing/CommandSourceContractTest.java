package dev.sebridge.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.ReceivedCommand;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What every {@link CommandSource} must do, whatever it reads from (Kafka, Event Hubs): each
 * implementation's test extends this class against a real broker or namespace, as every sink's test
 * extends {@link EventSinkContractTest}.
 *
 * <p>The commands channel (topic, hub) is shared by the tests; each test uses vmIds of its own.
 */
public abstract class CommandSourceContractTest {
  protected static final Duration READ = Duration.ofSeconds(30);

  /** A source reading the commands of {@code vmId}, with {@code clock} for its lookback. */
  protected abstract CommandSource source(String vmId, Clock clock);

  /** Sends a command addressed to {@code vmId} the way approval workflows do. */
  protected abstract void publish(String vmId, byte[] payload) throws Exception;

  /** Partitions of the commands channel. */
  protected abstract int partitions();

  /** Whether the source can tell it read everything ({@link CommandSource#atEnd}). */
  protected boolean knowsTheEnd() {
    return false;
  }

  protected void publish(String vmId, String text) throws Exception {
    publish(vmId, text.getBytes(StandardCharsets.UTF_8));
  }

  /** A fresh vmId sharing the partition of {@code vmId} (or not). */
  protected String neighbour(String vmId, boolean samePartition) {
    int mine = CommandPartitioning.partitionFor(vmId, partitions());
    while (true) {
      String other = UUID.randomUUID().toString();
      if ((CommandPartitioning.partitionFor(other, partitions()) == mine) == samePartition) {
        return other;
      }
    }
  }

  /** Polls until {@code n} commands came or the timeout passed; then once more, briefly. */
  protected static List<ReceivedCommand> read(CommandSource s, int n, Duration timeout) {
    List<ReceivedCommand> out = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (out.size() < n && System.nanoTime() < deadline) {
      try {
        out.addAll(s.poll(Duration.ofMillis(300)));
      } catch (RuntimeException e) {
        // the pump retries a failed poll; so do we
      }
    }
    out.addAll(s.poll(Duration.ofMillis(300)));
    return out;
  }

  protected static List<String> texts(List<ReceivedCommand> commands) {
    return commands.stream().map(c -> new String(c.payload(), StandardCharsets.UTF_8)).toList();
  }

  @Test
  void readsOnlyTheCommandsOfItsVmInOrder() throws Exception {
    String me = UUID.randomUUID().toString();
    publish(me, "one");
    publish(neighbour(me, true), "a neighbour's");
    publish(neighbour(me, false), "elsewhere");
    publish(me, "two");
    publish(me, "three");
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.empty());
      List<ReceivedCommand> got = read(s, 3, READ);
      assertThat(texts(got)).containsExactly("one", "two", "three");
      assertThat(got).extracting(ReceivedCommand::origin).doesNotContainNull();
    }
  }

  @Test
  void reopenedAtAPositionItReadsWhatCameAfterIt() throws Exception {
    String me = UUID.randomUUID().toString();
    publish(me, "one");
    publish(me, "two");
    List<ReceivedCommand> first;
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.empty());
      first = read(s, 2, READ);
    }
    assertThat(texts(first)).containsExactly("one", "two");
    publish(me, "three");
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.of(first.get(0).position()));
      assertThat(texts(read(s, 2, READ))).containsExactly("two", "three");
    }
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.of(first.get(1).position()));
      assertThat(texts(read(s, 1, READ))).containsExactly("three");
    }
  }

  @Test
  void withoutAPositionItReadsBackFarEnoughForEveryValidCommandAndNoFurther() throws Exception {
    String me = UUID.randomUUID().toString();
    publish(me, "recent");
    // A command lives at most 10 minutes (60 s of skew): 11 minutes back covers every valid one.
    Clock tenMinutesLater = Clock.fixed(Instant.now().plus(Duration.ofMinutes(10)), ZoneOffset.UTC);
    try (CommandSource s = source(me, tenMinutesLater)) {
      s.open(Optional.empty());
      assertThat(texts(read(s, 1, READ))).containsExactly("recent");
    }
    Clock twelveMinutesLater =
        Clock.fixed(Instant.now().plus(Duration.ofMinutes(12)), ZoneOffset.UTC);
    try (CommandSource s = source(me, twelveMinutesLater)) {
      s.open(Optional.empty());
      assertThat(read(s, 1, Duration.ofSeconds(3))).isEmpty();
    }
  }

  @Test
  void anEmptyRecordIsHandedOverForTheCoreToReject() throws Exception {
    String me = UUID.randomUUID().toString();
    publish(me, new byte[0]);
    publish(me, "after");
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.empty());
      assertThat(texts(read(s, 2, READ))).containsExactly("", "after");
    }
  }

  /** The number a record's origin ends with ({@code ...@1042}): the position the core records. */
  protected static long recordPosition(ReceivedCommand c) {
    return Long.parseLong(c.origin().substring(c.origin().lastIndexOf('@') + 1));
  }

  /**
   * A record skipped as poison is read neither by the source that skipped it nor by one opened at
   * the position {@code skipAt} returned, which the core persists: a restart does not meet it again
   * when only other VMs' records came after it. A position before where a source reads, or past the
   * end, has nothing to skip.
   */
  @Test
  void aSkippedRecordIsNotReadAgainNorAfterAReopenAtThePositionReturned() throws Exception {
    String me = UUID.randomUUID().toString();
    publish(me, "poison");
    publish(me, "right after"); // the position returned is neither before nor past it
    publish(neighbour(me, true), "a neighbour's");
    long at;
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.empty());
      List<ReceivedCommand> got = read(s, 2, READ);
      assertThat(texts(got)).containsExactly("poison", "right after");
      at = recordPosition(got.get(0));
    }
    CommandSource.Skipped skipped;
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.empty());
      skipped = s.skipAt(at).orElseThrow();
      assertThat(skipped.record()).endsWith("@" + at);
      publish(me, "after");
      assertThat(texts(read(s, 2, READ))).containsExactly("right after", "after");
    }
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.of(skipped.next()));
      assertThat(s.skipAt(at)).as("before where it reads: read already").isEmpty();
      assertThat(s.skipAt(at + 1_000_000)).as("past the end: nothing there yet").isEmpty();
      assertThat(texts(read(s, 2, READ))).containsExactly("right after", "after");
    }
  }

  /**
   * After a death the agent reads one record at a time: each poll hands over at most one record,
   * and the read position moves past each, so the next death is counted at its own record.
   */
  @Test
  void oneAtATimeEachPollHandsOverOneRecordAndMovesThePositionPastIt() throws Exception {
    String me = UUID.randomUUID().toString();
    publish(me, "one");
    publish(me, "two");
    publish(me, "three");
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.readOneAtATime();
      s.open(Optional.empty());
      List<ReceivedCommand> got = new ArrayList<>();
      long deadline = System.nanoTime() + READ.toNanos();
      while (got.size() < 3 && System.nanoTime() < deadline) {
        long before = s.readPosition().orElse(-1);
        List<ReceivedCommand> polled = s.poll(Duration.ofMillis(300));
        assertThat(polled).hasSizeLessThanOrEqualTo(1);
        for (ReceivedCommand c : polled) {
          if (before >= 0) {
            assertThat(recordPosition(c)).as("the record read from").isEqualTo(before);
          }
          assertThat(s.readPosition()).hasValue(recordPosition(c) + 1);
        }
        got.addAll(polled);
      }
      assertThat(texts(got)).containsExactly("one", "two", "three");
    }
  }

  /**
   * Each record is handed over from a read position the source told before the read, the first
   * included, also with no stored position: the agent records that position before each read, so a
   * death handling a record is counted at that record. (Event Hubs reading from its lookback had no
   * position before its first record: a new VM's deaths there were never counted.)
   */
  @Test
  void everyRecordIsReadFromAPositionToldBeforeTheRead() throws Exception {
    String me = UUID.randomUUID().toString();
    // The lookback (11 minutes on both sources) starts now: no other test's records come first,
    // which would give the old source a position before this VM's first record.
    java.time.Instant start = java.time.Instant.now().minusMillis(100);
    publish(me, "one");
    publish(me, "two");
    Clock later = Clock.fixed(start.plus(Duration.ofMinutes(11)), java.time.ZoneOffset.UTC);
    try (CommandSource s = source(me, later)) {
      s.open(Optional.empty());
      List<ReceivedCommand> got = new ArrayList<>();
      long deadline = System.nanoTime() + READ.toNanos();
      while (got.size() < 2 && System.nanoTime() < deadline) {
        java.util.OptionalLong before = s.readPosition();
        List<ReceivedCommand> polled;
        try {
          polled = s.poll(Duration.ofMillis(300));
        } catch (RuntimeException e) {
          continue; // the pump retries a failed poll; so do we
        }
        if (!polled.isEmpty()) {
          assertThat(before).as("a position told before the read").isPresent();
          assertThat(recordPosition(polled.get(0))).isGreaterThanOrEqualTo(before.getAsLong());
        }
        got.addAll(polled);
      }
      assertThat(texts(got)).containsExactly("one", "two");
    }
  }

  /**
   * At the end only when the source knows nothing is left: not before its first read (a fetch may
   * be on its way), and after everything was read. The agent counts no death while at the end.
   */
  @Test
  void atTheEndOnlyWhenItKnowsNothingIsLeft() throws Exception {
    String me = UUID.randomUUID().toString();
    publish(me, "one");
    try (CommandSource s = source(me, Clock.systemUTC())) {
      s.open(Optional.empty());
      assertThat(s.atEnd()).as("before any read").isFalse();
      assertThat(texts(read(s, 1, READ))).containsExactly("one");
      if (!knowsTheEnd()) {
        return; // it never says so: every death while reading is counted
      }
      long deadline = System.nanoTime() + READ.toNanos();
      while (!s.atEnd() && System.nanoTime() < deadline) {
        assertThat(s.poll(Duration.ofMillis(300))).isEmpty();
      }
      assertThat(s.atEnd()).as("everything read").isTrue();
      publish(me, "two");
      assertThat(texts(read(s, 1, READ))).containsExactly("two");
    }
  }

  @Test
  void closeIsIdempotent() {
    CommandSource s = source(UUID.randomUUID().toString(), Clock.systemUTC());
    s.open(Optional.empty());
    s.close();
    s.close();
  }
}
