package dev.sebridge.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Where the command pump was reading, {@code state.dir/commands/reading-<source>}: written when a
 * run starts, before its first poll, before a read that starts further along the stream than the
 * last one, when a read finds the end or records after it, and on a clean stop. An agent that finds
 * it still marked reading died while reading; dying again and again at the same position means a
 * record there breaks the source (a "poison record"), and it is skipped.
 */
final class ReadingMarker {
  /** Deaths at one position after which its record is skipped. */
  static final int MAX_CRASHES = 3;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final StateDirectory state;
  private final String file;
  private long position = -1;
  private int crashes;
  private boolean running;
  private boolean idle;
  private boolean started;
  // This run began a poll (written: a death before that, while the run recovers its state or its
  // source cannot reach its broker, read no record and is not counted).
  private boolean read = true;
  private boolean stopped;
  // This run read at the position and handled what it found there (not written: a run's own).
  private boolean lived;

  ReadingMarker(StateDirectory state, String sourceName) {
    this.state = state;
    this.file = "commands/reading-" + sourceName;
    state.read(file).ifPresent(this::load);
  }

  private void load(byte[] bytes) {
    try {
      JsonNode n = JSON.readTree(bytes);
      position = n.path("position").asLong(-1);
      crashes = n.path("crashes").asInt(0);
      running = n.path("running").asBoolean(false);
      idle = n.path("idle").asBoolean(false);
      read = n.path("read").asBoolean(true); // (a marker written before the field: as it was)
    } catch (IOException e) {
      state.quarantine(file, e.toString());
    }
  }

  /**
   * Called once when the agent starts reading: counts a death if the last run did not stop cleanly
   * and was not idle (a read had found the end of the stream, at or behind the position, and none
   * had found anything since: a VM hard-reset while quiet, which no record caused). Returns the
   * position its record made the agent die at {@link #MAX_CRASHES} times, if so. Nor is a death
   * counted before the run's first poll ({@link #polling}): one while the run recovers its state,
   * or its source cannot reach its broker to tell where it reads, read no record (a hard reset of a
   * VM whose Kafka broker is unreachable). An idle marker stays idle until that first poll.
   */
  synchronized java.util.OptionalLong start() {
    if (stopped) {
      return java.util.OptionalLong.empty(); // the stop came first: nothing more is recorded
    }
    int counted = running && read && position >= 0 && !idle ? crashes + 1 : crashes;
    // not written: the start is tried again, and counts the same
    commit(position, counted, true, idle, false);
    started = true;
    return crashes >= MAX_CRASHES
        ? java.util.OptionalLong.of(position)
        : java.util.OptionalLong.empty();
  }

  /**
   * The deaths at the position were dealt with: its record was skipped, and reading goes on after
   * it; or there was no record there to skip (the agent died idle at the end of the stream), and
   * reading goes on from there, where the next death is counted.
   */
  synchronized void skipped(boolean recordSkipped) {
    if (stopped) {
      return;
    }
    commit(recordSkipped ? position + 1 : position, 0, running, idle, read);
    lived = false;
  }

  /** Before a read from {@code next}: recorded when it is further than before. */
  synchronized void reading(long next) {
    if (stopped) {
      return;
    }
    if (next > position) {
      commit(next, 0, running, false, read);
      lived = false;
    }
  }

  /**
   * Right before a poll: the run's first one is recorded (once a run: a quiet VM's later polls
   * write nothing). From then on a death may be a record's doing, and is counted; and this first
   * poll decides again whether the stream has a record at the position (an idle marker is marked
   * busy).
   */
  synchronized void polling() {
    if (!stopped && !read) {
      commit(position, crashes, running, false, true);
    }
  }

  /**
   * Records were read up to {@code to} (the read position after them) and handled: when that is
   * past the position, the record there did not kill this run, and a clean stop now forgives the
   * deaths counted there. (A read that found nothing says nothing of the record there, unless the
   * source knew it was at the end: {@link #idle}.)
   */
  synchronized void lived(long to) {
    if (to > position) {
      lived = true;
    }
  }

  /**
   * A read found the end of the stream (the pump passes the marker's own position: a read behind it
   * that found the end found nothing at it either): a death from now until a read finds something
   * is no record's doing, and is not counted; nor were the deaths counted there before, which had
   * no record there to die of (they are cleared: a command that comes there later starts with
   * none). Nothing is marked at another position. (A record that kills the agent in the very next
   * read is counted from the next run on: each run's first poll decides again.)
   */
  synchronized void idle(long at) {
    if (!stopped && !idle && at == position) {
      commit(position, 0, running, true, read);
    }
  }

  /** Whether a read found nothing at the position, and none found anything since. */
  synchronized boolean isIdle() {
    return idle;
  }

  /** A read handed records over: a death while they are handled is counted. */
  synchronized void busy() {
    if (!stopped && idle) {
      commit(position, crashes, running, false, read);
    }
  }

  /**
   * A clean stop: the next start is not a death. The deaths counted so far are forgiven only when
   * this run read the record at their position and handled it ({@link #lived}), or found no record
   * there ({@link #idle}): a stop before that (the source never opened, a read found nothing before
   * the source knew where the end was, a read or its handling hung) says nothing of the record
   * there, and forgave a poison's deaths before. A stop before the start writes nothing: the file
   * still counts the last run's death. Written once, by whichever comes first: the pump's thread as
   * it ends, or the stop itself when that thread hangs (in a source's close); nothing the pump does
   * afterwards is recorded.
   */
  synchronized void stopped() {
    if (stopped) {
      return;
    }
    if (started) {
      commit(position, lived || idle ? 0 : crashes, false, idle, read);
    }
    stopped = true;
  }

  synchronized int crashes() {
    return crashes;
  }

  /** Where the deaths were counted (-1: nowhere yet). */
  synchronized long position() {
    return position;
  }

  /**
   * Writes the marker as it is to be, then takes it on: a write that fails changes nothing, so the
   * same call made again writes it again (before, the fields changed first, and a call repeated
   * after a failed write found nothing to do: the file kept the old position while reads went on).
   */
  private void commit(long position, int crashes, boolean running, boolean idle, boolean read) {
    ObjectNode n = JSON.createObjectNode();
    n.put("position", position);
    n.put("crashes", crashes);
    n.put("running", running);
    n.put("idle", idle);
    n.put("read", read);
    try {
      state.write(file, JSON.writeValueAsBytes(n));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.position = position;
    this.crashes = crashes;
    this.running = running;
    this.idle = idle;
    this.read = read;
  }
}
