package dev.sebridge.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.schemas.EnvelopeValidator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;

/** Reads what the file sink wrote: one envelope per line. */
public final class EnvelopeFile {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path path;

  public EnvelopeFile(Path path) {
    this.path = path;
  }

  public List<JsonNode> read() {
    if (!Files.exists(path)) {
      return List.of();
    }
    try {
      List<JsonNode> out = new ArrayList<>();
      String text = Files.readString(path, StandardCharsets.UTF_8);
      // A reader tailing the file sees the line being appended, or one a crash left unfinished
      // (the sink cuts it when it reopens the file): only lines ended by '\n' are envelopes.
      int complete = text.lastIndexOf('\n') + 1;
      for (String line : text.substring(0, complete).split("\n")) {
        if (!line.isBlank()) {
          // Every envelope any test reads back is checked against the published schema.
          List<String> problems = EnvelopeValidator.validate(line.getBytes(StandardCharsets.UTF_8));
          if (!problems.isEmpty()) {
            throw new AssertionError("invalid envelope " + problems + ": " + line);
          }
          out.add(JSON.readTree(line));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits until at least {@code n} scheduled-event transition envelopes are there; returns them
   * (heartbeats and approval results, also in the file, are left out).
   */
  public List<JsonNode> await(int n, Duration timeout) {
    Awaitility.await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> transitionEnvelopes().size() >= n);
    return transitionEnvelopes();
  }

  /** The scheduled-event transition envelopes, in order. */
  public List<JsonNode> transitionEnvelopes() {
    return read().stream()
        .filter(e -> e.get("type").asText().startsWith("dev.sebridge.scheduledevent."))
        .toList();
  }

  /**
   * "EventId:transition" of every scheduled-event envelope, in order (inferred ones marked with a
   * star); other types (approval results) are left out.
   */
  public List<String> transitions() {
    return transitionEnvelopes().stream().map(EnvelopeFile::describe).toList();
  }

  /**
   * Like {@link #transitions()}, each envelope id once: a crash may make the agent send a
   * transition again, and then the copy must be identical (asserted here).
   */
  public List<String> distinctTransitions() {
    java.util.Map<String, JsonNode> byId = new java.util.LinkedHashMap<>();
    for (JsonNode e : transitionEnvelopes()) {
      JsonNode first = byId.putIfAbsent(e.get("id").asText(), e);
      if (first != null && !first.equals(e)) {
        throw new AssertionError("two different envelopes with id " + e.get("id").asText());
      }
    }
    return byId.values().stream().map(EnvelopeFile::describe).toList();
  }

  public static String describe(JsonNode e) {
    JsonNode d = e.get("data");
    return d.at("/event/EventId").asText()
        + ":"
        + d.get("transition").asText()
        + (d.path("inferred").asBoolean() ? "*" : "");
  }
}
