package dev.sebridge.envelope;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * A CloudEvents 1.0 envelope in structured JSON mode: the attributes sinks need for routing and
 * headers, and the serialized event itself ({@link #body()}), which is self-contained.
 */
public final class Envelope {
  /** Content type of {@link #body()}. */
  public static final String CONTENT_TYPE = "application/cloudevents+json; charset=utf-8";

  /**
   * The agent's own limit: 64,000 bytes, under 64 KB however it is read, so one envelope fits one
   * Log Analytics field (the Logs Ingestion API truncates values above 64 KB) and every CloudEvents
   * forwarder. The published contract ({@code schemas}) promises at most 64 KiB.
   */
  public static final int MAX_BYTES = 64_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String id;
  private final String type;
  private final String source;
  private final String subject;
  private final String partitionKey;
  private final Instant time;
  private final byte[] body;

  public Envelope(
      String id,
      String type,
      String source,
      String subject,
      String partitionKey,
      Instant time,
      byte[] body) {
    this.id = Objects.requireNonNull(id);
    this.type = Objects.requireNonNull(type);
    this.source = Objects.requireNonNull(source);
    this.subject = subject;
    this.partitionKey = Objects.requireNonNull(partitionKey);
    this.time = Objects.requireNonNull(time);
    this.body = body.clone();
  }

  /** Reads the attributes back from a serialized envelope. */
  public static Envelope fromJson(byte[] body) {
    try {
      JsonNode n = JSON.readTree(body);
      return new Envelope(
          n.get("id").asText(),
          n.get("type").asText(),
          n.get("source").asText(),
          n.hasNonNull("subject") ? n.get("subject").asText() : null,
          n.get("partitionkey").asText(),
          Instant.parse(n.get("time").asText()),
          body);
    } catch (IOException | NullPointerException | java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException("not an sebridge envelope: " + e.getMessage(), e);
    }
  }

  public String id() {
    return id;
  }

  public String type() {
    return type;
  }

  public String source() {
    return source;
  }

  /** The EventId for scheduled-event transitions; may be null for other types. */
  public String subject() {
    return subject;
  }

  /** The vmId: Kafka record key, Event Hubs partition key. */
  public String partitionKey() {
    return partitionKey;
  }

  public Instant time() {
    return time;
  }

  /** The structured-mode CloudEvents JSON, UTF-8. */
  public byte[] body() {
    return body.clone();
  }

  public String bodyAsString() {
    return new String(body, StandardCharsets.UTF_8);
  }

  public int size() {
    return body.length;
  }

  /** The body as a JSON tree (parsed on each call). */
  public JsonNode json() {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Envelope e && id.equals(e.id) && Arrays.equals(body, e.body);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  @Override
  public String toString() {
    return type + " " + id + " (" + subject + ")";
  }
}
