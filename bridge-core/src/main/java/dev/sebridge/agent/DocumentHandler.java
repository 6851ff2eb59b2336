package dev.sebridge.agent;

import dev.sebridge.imds.ScheduledEventsDocument;
import java.time.Instant;

/** What the poller does with each valid document. Called on the poller thread, in order. */
@FunctionalInterface
interface DocumentHandler {
  void onDocument(ScheduledEventsDocument document, Instant observedAt) throws InterruptedException;
}
