package dev.sebridge.agent;

import dev.sebridge.imds.ImdsFailure;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counters of the poll loop, for health checks, heartbeats and metrics. Thread-safe. */
public final class PollStats {
  private final AtomicLong polls = new AtomicLong();
  private final AtomicLong documents = new AtomicLong();
  private final AtomicLong transitions = new AtomicLong();
  private final Map<ImdsFailure.Kind, AtomicLong> failures = new EnumMap<>(ImdsFailure.Kind.class);
  private volatile Instant lastSuccess;
  private volatile long lastIncarnation = -1;

  public PollStats() {
    for (ImdsFailure.Kind k : ImdsFailure.Kind.values()) {
      failures.put(k, new AtomicLong());
    }
  }

  void success(Instant at, long incarnation) {
    polls.incrementAndGet();
    documents.incrementAndGet();
    lastSuccess = at;
    lastIncarnation = incarnation;
  }

  void failure(ImdsFailure.Kind kind) {
    polls.incrementAndGet();
    failures.get(kind).incrementAndGet();
  }

  void transitions(int n) {
    transitions.addAndGet(n);
  }

  public long polls() {
    return polls.get();
  }

  public long documents() {
    return documents.get();
  }

  public long transitions() {
    return transitions.get();
  }

  public long failures(ImdsFailure.Kind kind) {
    return failures.get(kind).get();
  }

  public long failures() {
    return failures.values().stream().mapToLong(AtomicLong::get).sum();
  }

  /** When IMDS last answered with a valid document, or null. */
  public Instant lastSuccess() {
    return lastSuccess;
  }

  public long lastIncarnation() {
    return lastIncarnation;
  }
}
