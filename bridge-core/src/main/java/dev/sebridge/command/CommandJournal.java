package dev.sebridge.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The command pump's durable position, {@code state.dir/commands/position-<source>}: where to
 * resume reading, and, between {@link #stage} and {@link #commit}, the result envelopes of the last
 * batch with the ids of its commands.
 *
 * <p>A batch's results are staged here before they go into the outbox, so a crash at any point
 * loses none: after a restart the staged results are published again, byte for byte (the same
 * envelopes, so a consumer sees identical duplicates at worst), and reading resumes after the
 * batch. One write stages a whole batch, one write commits it.
 *
 * <p>Format: {@code {"position": "...", "results": ["<envelope JSON>"...], "commands": [jti...],
 * "rejections": {counts not yet reported}}}; a file holding only a position (written by earlier
 * versions) is read as such.
 */
public final class CommandJournal {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final StateDirectory state;
  private final String file;
  private String position;
  private List<Envelope> staged = List.of();
  private List<String> stagedCommands = List.of();
  private JsonNode pendingRejections;

  public CommandJournal(StateDirectory state, String sourceName) {
    this.state = state;
    this.file = "commands/position-" + sourceName;
    state.read(file).ifPresent(this::load);
  }

  private void load(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8).trim();
    if (!text.startsWith("{")) {
      position = text.isEmpty() ? null : text;
      return;
    }
    try {
      JsonNode root = JSON.readTree(text);
      position = root.path("position").isTextual() ? root.get("position").asText() : null;
      List<Envelope> results = new ArrayList<>();
      for (JsonNode r : root.path("results")) {
        results.add(Envelope.fromJson(r.asText().getBytes(StandardCharsets.UTF_8)));
      }
      List<String> commands = new ArrayList<>();
      root.path("commands").forEach(c -> commands.add(c.asText()));
      staged = List.copyOf(results);
      stagedCommands = List.copyOf(commands);
      pendingRejections = root.get("rejections");
    } catch (IOException | IllegalArgumentException e) {
      // Without it the pump re-reads from its lookback: commands already handled are then
      // replays (the replay cache has them), new ones are handled. Nothing is approved twice.
      state.quarantine(file, e.toString());
      position = null;
      staged = List.of();
      stagedCommands = List.of();
    }
  }

  /** Where to resume reading (after the last staged batch), if anything was ever read. */
  public synchronized Optional<String> position() {
    return Optional.ofNullable(position);
  }

  /** Results staged but perhaps not yet in the outbox (empty once committed). */
  public synchronized List<Envelope> staged() {
    return staged;
  }

  /** Ids of the commands whose results are staged. */
  public synchronized List<String> stagedCommands() {
    return stagedCommands;
  }

  /** Rejections counted but not yet reported (null when none), as the pump left them. */
  public synchronized JsonNode pendingRejections() {
    return pendingRejections;
  }

  /**
   * Durably records a batch's results, the position after it, and the rejections counted so far,
   * before the results are published.
   */
  public synchronized void stage(
      String nextPosition, List<Envelope> results, List<String> commands, JsonNode rejections) {
    position = nextPosition;
    staged = List.copyOf(results);
    stagedCommands = List.copyOf(commands);
    pendingRejections = rejections;
    write();
  }

  /** The staged results are durable in the outbox: forget them. */
  public synchronized void commit() {
    if (staged.isEmpty() && stagedCommands.isEmpty()) {
      return;
    }
    staged = List.of();
    stagedCommands = List.of();
    write();
  }

  private void write() {
    ObjectNode root = JSON.createObjectNode();
    root.put("position", position);
    var results = root.putArray("results");
    staged.forEach(e -> results.add(e.bodyAsString()));
    var commands = root.putArray("commands");
    stagedCommands.forEach(commands::add);
    if (pendingRejections != null) {
      root.set("rejections", pendingRejections);
    }
    try {
      state.write(file, JSON.writeValueAsBytes(root));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
