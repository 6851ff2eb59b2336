package dev.sebridge.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Where the command pump was reading, {@code state.dir/commands/reading-<source>}: written before a
 * read that starts further along the stream than the last one, and marked stopped on a clean stop.
 * An agent that finds it still marked reading died while reading; dying again and again at the same
 * position means a record there breaks the source (a "poison record"), and it is skipped.
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
    } catch (IOException e) {
      state.quarantine(file, e.toString());
    }
  }

  /**
   * Called once when the agent starts reading: counts a death if the last run did not stop cleanly.
   * Returns the position its record made the agent die at {@link #MAX_CRASHES} times, if so.
   */
  java.util.OptionalLong start() {
    if (running && position >= 0) {
      crashes++;
    }
    running = true;
    write();
    return crashes >= MAX_CRASHES
        ? java.util.OptionalLong.of(position)
        : java.util.OptionalLong.empty();
  }

  /** The record at the position was skipped: reading goes on after it. */
  void skipped() {
    position++;
    crashes = 0;
    write();
  }

  /** Before a read from {@code next}: recorded when it is further than before. */
  void reading(long next) {
    if (next > position) {
      position = next;
      crashes = 0;
      write();
    }
  }

  /** A clean stop: the next start is not a death. */
  void stopped() {
    running = false;
    write();
  }

  int crashes() {
    return crashes;
  }

  private void write() {
    ObjectNode n = JSON.createObjectNode();
    n.put("position", position);
    n.put("crashes", crashes);
    n.put("running", running);
    try {
      state.write(file, JSON.writeValueAsBytes(n));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
