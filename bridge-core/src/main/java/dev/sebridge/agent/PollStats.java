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
  private final AgentMetrics metrics;
  private final java.util.concurrent.CompletableFuture<Void> firstPoll =
      new java.util.concurrent.CompletableFuture<>();

  public PollStats() {
    this(new AgentMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
  }

  public PollStats(AgentMetrics metrics) {
    this.metrics = metrics;
    for (ImdsFailure.Kind k : ImdsFailure.Kind.values()) {
      failures.put(k, new AtomicLong());
    }
  }

  void success(Instant at, long incarnation, java.time.Duration latency) {
    metrics.pollSucceeded(latency);
    polls.incrementAndGet();
    documents.incrementAndGet();
    lastSuccess = at;
    lastIncarnation = incarnation;
    firstPoll.complete(null);
  }

  void failure(ImdsFailure.Kind kind) {
    metrics.pollFailed(kind);
    polls.incrementAndGet();
    failures.get(kind).incrementAndGet();
    firstPoll.complete(null);
  }

  /** Completes when the first poll has ended, answered or failed. */
  java.util.concurrent.CompletionStage<Void> firstPoll() {
    return firstPoll;
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

  /** Failed polls by class label, for heartbeats. */
  public Map<String, Long> failuresByClass() {
    Map<String, Long> m = new java.util.TreeMap<>();
    failures.forEach(
        (k, v) -> {
          if (v.get() > 0) {
            m.put(k.label(), v.get());
          }
        });
    return m;
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
