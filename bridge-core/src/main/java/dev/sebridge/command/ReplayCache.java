package dev.sebridge.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Command ids ({@code jti}) already acted on, kept durably ({@code state.dir/commands/seen.json})
 * until their command has expired, so neither a replay nor a restart reopens them.
 *
 * <p>An entry is written before anything is posted ({@link State#PENDING}) and completed only once
 * the command's result envelope is durable in the outbox ({@link State#DONE}), with the source
 * position it was read at: the same command read again at the same position is a re-delivery after
 * a crash, not a replay, and a {@code PENDING} one is resumed.
 */
public final class ReplayCache {
  static final String FILE = "commands/seen.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How far a command got. */
  public enum State {
    PENDING,
    DONE
  }

  /** One remembered command. */
  public record Entry(Instant expiresAt, String position, State state) {}

  private final StateDirectory dir;
  private final Clock clock;
  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private Instant blindUntil = Instant.MIN;

  public ReplayCache(StateDirectory dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
    dir.read(FILE).ifPresent(this::load);
  }

  /**
   * Until when commands must be refused because the cache was lost (corrupt file): any command
   * valid before that could be a replay. {@link Instant#MIN} when the cache is intact.
   */
  public synchronized Instant blindUntil() {
    return blindUntil;
  }

  private void load(byte[] bytes) {
    try {
      JsonNode root = JSON.readTree(bytes);
      root.fields()
          .forEachRemaining(
              e ->
                  entries.put(
                      e.getKey(),
                      new Entry(
                          Instant.parse(e.getValue().get("exp").asText()),
                          e.getValue().path("position").asText(null),
                          State.valueOf(e.getValue().get("state").asText()))));
    } catch (IOException | RuntimeException e) {
      // Without it, any command still valid could be replayed: refuse commands until every
      // command issued before now has expired. Events keep flowing meanwhile.
      dir.quarantine(FILE, e.toString());
      entries.clear();
      blindUntil = clock.instant().plus(CommandVerifier.MAX_LIFETIME).plus(CommandVerifier.SKEW);
      org.slf4j.LoggerFactory.getLogger(ReplayCache.class)
          .error(
              "the replay cache was corrupt; approval commands are refused until {}", blindUntil);
    }
  }

  public synchronized Optional<Entry> get(String jti) {
    return Optional.ofNullable(entries.get(jti));
  }

  public synchronized void put(String jti, Instant expiresAt, String position, State state) {
    entries.put(jti, new Entry(expiresAt, position, state));
    persist();
  }

  private void persist() {
    Instant horizon = clock.instant().minus(CommandVerifier.SKEW);
    entries.values().removeIf(e -> e.expiresAt().isBefore(horizon));
    ObjectNode root = JSON.createObjectNode();
    entries.forEach(
        (jti, e) -> {
          ObjectNode n = root.putObject(jti);
          n.put("exp", e.expiresAt().toString());
          n.put("position", e.position());
          n.put("state", e.state().name());
        });
    try {
      // The mapper's own writer: JsonNode.toString() would build a second mapper on first use.
      dir.write(FILE, JSON.writeValueAsBytes(root));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Marks commands DONE (their results are durable), in one write. */
  public synchronized void markDone(java.util.Collection<String> jtis) {
    boolean changed = false;
    for (String jti : jtis) {
      Entry e = entries.get(jti);
      if (e != null && e.state() != State.DONE) {
        entries.put(jti, new Entry(e.expiresAt(), e.position(), State.DONE));
        changed = true;
      }
    }
    if (changed) {
      persist();
    }
  }

  public synchronized int size() {
    return entries.size();
  }
}
