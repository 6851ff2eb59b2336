package dev.sebridge.approval;

import java.time.Instant;
import java.util.List;

/**
 * Told when this agent approved events (StartRequests taken by IMDS), so that an approved event
 * that disappears is reported as {@code completed}, not {@code canceled}. The event pipeline
 * implements it; the command pump and the local policy call it.
 */
@FunctionalInterface
public interface ApprovalRecorder {
  void approved(List<String> eventIds, Instant at);
}
