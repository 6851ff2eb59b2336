package dev.sebridge.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.approval.ReasonCode;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The local policy's approvals in flight, {@code state.dir/policy.json}: recorded before the POST,
 * with their result envelope once decided, forgotten once the result is durable in the outbox.
 * After a crash, an approval left here is resumed (its result published, or its events checked
 * again without a second POST), so a policy approval loses its result no more than a command does.
 */
final class PolicyJournal {
  static final String FILE = "policy.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param key the result's key (its envelope id derives from it)
   * @param eventId the event approved
   * @param rule the rule that approved it
   * @param result the result envelope once decided, else null
   */
  record Entry(String key, String eventId, ReasonCode rule, Envelope result) {}

  private final StateDirectory state;
  private final Map<String, Entry> entries = new LinkedHashMap<>();

  PolicyJournal(StateDirectory state) {
    this.state = state;
    state.read(FILE).ifPresent(this::load);
  }

  private void load(byte[] bytes) {
    try {
      for (JsonNode n : JSON.readTree(bytes).path("approvals")) {
        Envelope result =
            n.path("result").isTextual()
                ? Envelope.fromJson(n.get("result").asText().getBytes(StandardCharsets.UTF_8))
                : null;
        ReasonCode rule = ReasonCode.byLabel(n.path("rule").asText()).orElseThrow();
        entries.put(
            n.get("key").asText(),
            new Entry(n.get("key").asText(), n.get("eventId").asText(), rule, result));
      }
    } catch (IOException | RuntimeException e) {
      // Lost: those approvals may have been posted without a result. The pipeline offers the
      // events again after a restart; one that started meanwhile gets no second POST.
      state.quarantine(FILE, e.toString());
      entries.clear();
    }
  }

  synchronized List<Entry> entries() {
    return List.copyOf(entries.values());
  }

  synchronized boolean hasEvent(String eventId) {
    return entries.values().stream().anyMatch(e -> e.eventId().equalsIgnoreCase(eventId));
  }

  synchronized Optional<Entry> get(String key) {
    return Optional.ofNullable(entries.get(key));
  }

  /** Before the POST. */
  synchronized void pending(String key, String eventId, ReasonCode rule) {
    entries.put(key, new Entry(key, eventId, rule, null));
    write();
  }

  /** The result is decided: kept until it is durable. */
  synchronized void staged(String key, Envelope result) {
    Entry e = entries.get(key);
    entries.put(key, new Entry(key, e.eventId(), e.rule(), result));
    write();
  }

  /** The result is durable in the outbox. */
  synchronized void done(String key) {
    if (entries.remove(key) != null) {
      write();
    }
  }

  private void write() {
    ObjectNode root = JSON.createObjectNode();
    var list = root.putArray("approvals");
    for (Entry e : entries.values()) {
      ObjectNode n = list.addObject();
      n.put("key", e.key());
      n.put("eventId", e.eventId());
      n.put("rule", e.rule().label());
      n.put("result", e.result() == null ? null : e.result().bodyAsString());
    }
    try {
      state.write(FILE, JSON.writeValueAsBytes(root));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
