package dev.sebridge.fleet.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.fleet.rollout.Rollout;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A rollout's header as stored ({@code rollout-state}, {@code <prefix>-views-rollouts}): wrapped as
 * {@code {"rolloutHeader2": {...}}}, so that an earlier version reading it (a rollback, an old
 * instance beside new ones) finds no state (its tick fails on the header) and releases nothing,
 * instead of taking the header for the rollout: a version from before rollouts were stored in parts
 * would take one without its VMs for a rollout with none (which it would complete); one from before
 * a rollout's group limits were entries of their own ({@code rolloutHeader}, until 2026-11-29)
 * would read it without its limits, and its next save would delete them. What either wrote reads as
 * it was.
 */
final class RolloutHeaderSerde implements Serde<Rollout> {
  static final String FIELD = "rolloutHeader2";

  /** The wrapper of the version before the group limits were entries: read, never written. */
  static final String EARLIER_FIELD = "rolloutHeader";

  @Override
  public Serializer<Rollout> serializer() {
    return (topic, value) -> {
      if (value == null) {
        return null;
      }
      try {
        return JsonSerde.JSON.writeValueAsBytes(
            JsonSerde.JSON.createObjectNode().set(FIELD, JsonSerde.JSON.valueToTree(value)));
      } catch (IOException | IllegalArgumentException e) {
        throw new SerializationException("cannot write a rollout header", e);
      }
    };
  }

  @Override
  public Deserializer<Rollout> deserializer() {
    return (topic, bytes) -> {
      if (bytes == null) {
        return null;
      }
      try {
        JsonNode n = JsonSerde.JSON.readTree(bytes);
        JsonNode header = n.has(FIELD) ? n.get(FIELD) : n.get(EARLIER_FIELD);
        return JsonSerde.JSON.treeToValue(header != null ? header : n, Rollout.class);
      } catch (IOException | IllegalArgumentException e) {
        throw new SerializationException("not a rollout header: " + e.getMessage(), e);
      }
    };
  }
}
