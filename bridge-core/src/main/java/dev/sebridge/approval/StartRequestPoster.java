package dev.sebridge.approval;

import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsResult;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.util.List;

/**
 * {@code POST StartRequests}: one request carrying every EventId, retried on transient failures
 * ({@link ImdsRetry}). IMDS answers 200 for an event approved before, so a retry of a POST whose
 * answer was lost does no harm.
 */
final class StartRequestPoster {
  private final Imds imds;
  private final Duration timeout;
  private final Retry retry = ImdsRetry.of("imds-post");

  StartRequestPoster(Imds imds, Duration timeout) {
    this.imds = imds;
    this.timeout = timeout;
  }

  ImdsResult<Integer> post(List<String> eventIds) {
    return retry.executeSupplier(() -> imds.startEvents(eventIds, timeout));
  }
}
