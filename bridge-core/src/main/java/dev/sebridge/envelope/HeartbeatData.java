package dev.sebridge.envelope;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** What a heartbeat reports ({@link EnvelopeFactory#heartbeat}). */
public record HeartbeatData(
    long sequence,
    Duration interval,
    Instant startedAt,
    long polls,
    long documents,
    Map<String, Long> failures,
    Instant lastSuccess,
    long lastIncarnation,
    int knownEvents,
    long outboxBytes,
    Map<String, Long> pendingBySink) {}
