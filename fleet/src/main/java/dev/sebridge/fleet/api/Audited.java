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

  /** Writes the record and waits for the broker; 503 when it cannot. */
  static <V> void write(Producer<String, V> producer, String topic, String key, V value) {
    try {
      producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(503, "interrupted writing the audit record");
    } catch (ExecutionException | TimeoutException e) {
      throw new ApiException(503, "cannot write the audit record: " + e.getMessage());
    }
  }
}
