package dev.sebridge.fleet.api;

import dev.sebridge.fleet.auth.Principal;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** What every action of an approver shares: who may, why, and the audit record written first. */
final class Audited {
  static final int MAX_REASON = 512;

  private Audited() {}

  /** 403 for a reader, 400 without a reason of 1 to 512 characters. */
  static void approverWithReason(Principal p, String reason) {
    if (!p.role().mayApprove()) {
      throw new ApiException(403, p.name() + " may read, not approve");
    }
    if (reason == null || reason.isBlank() || reason.length() > MAX_REASON) {
      throw new ApiException(400, "a reason of 1 to " + MAX_REASON + " characters is required");
    }
  }

  /** 409 when a central policy (not a dry run) says never to approve this event. */
  static void notForbiddenByPolicy(FleetViews views, String eventId) {
    views
        .decision(eventId)
        .filter(d -> d.action().equals("never") && !d.dryRun())
        .ifPresent(
            d -> {
              throw new ApiException(
                  409,
                  "policy "
                      + d.rule()
                      + " v"
                      + d.version()
                      + " says never to approve event "
                      + eventId
                      + "; change the policy to approve it");
            });
  }

  /**
   * Writes the record and waits for the broker; 503 when it cannot. A write that timed out may
   * still take effect, so the 503 names what it was for ({@code idField}: the key) with {@code
   * "state": "unknown"}: the client looks it up, or retries with the same Idempotency-Key, which
   * makes the same request again and never a second one.
   */
  static <V> void write(
      Producer<String, V> producer, String topic, String key, V value, String idField) {
    write(
        producer,
        topic,
        key,
        value,
        idField,
        "look " + key + " up, or retry with the same Idempotency-Key");
  }

  /**
   * The same, {@code then} telling the client what to do (a rollout's action takes no
   * Idempotency-Key: look the rollout's history up before sending it again).
   */
  static <V> void write(
      Producer<String, V> producer,
      String topic,
      String key,
      V value,
      String idField,
      String then) {
    try {
      producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unknown("interrupted writing the audit record", key, idField, then);
    } catch (ExecutionException | TimeoutException | org.apache.kafka.common.KafkaException e) {
      throw unknown("cannot write the audit record: " + e.getMessage(), key, idField, then);
    }
  }

  private static ApiException unknown(String why, String key, String idField, String then) {
    return new ApiException(
        503,
        why + "; it may still take effect: " + then,
        java.util.Map.of(idField, key, "state", "unknown"));
  }
}
