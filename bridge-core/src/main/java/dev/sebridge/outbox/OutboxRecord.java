package dev.sebridge.outbox;

import dev.sebridge.envelope.Envelope;

/**
 * One envelope in the outbox.
 *
 * @param seq position in the outbox, strictly increasing, never reused
 * @param appendedAtMillis when it became durable (epoch millis)
 * @param sheddable true for envelopes that may be refused when the outbox is full (heartbeats)
 * @param envelope the envelope
 */
public record OutboxRecord(long seq, long appendedAtMillis, boolean sheddable, Envelope envelope) {}
