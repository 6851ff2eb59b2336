package dev.sebridge.testing;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * A sink that keeps what it receives, for tests. It can be taken down ({@link #down}), and made to
 * fail at random after storing part of a batch, the way a broker may have written some records of a
 * batch it then failed to acknowledge.
 */
public final class InMemorySink implements EventSink {
  private final String name;
  private final List<Envelope> received = new ArrayList<>();
  private volatile boolean down;
  private volatile double failureRate;
  private final Random random = new Random(42);
  private int exports;
  private boolean shutdown;

  public InMemorySink(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  /** While down, every export fails (retriable) and stores nothing. */
  public InMemorySink down(boolean down) {
    this.down = down;
    return this;
  }

  /** Fails this share of exports, after storing a random prefix of the batch. */
  public InMemorySink failureRate(double rate) {
    this.failureRate = rate;
    return this;
  }

  @Override
  public synchronized CompletableFuture<Void> export(List<Envelope> batch) {
    exports++;
    if (shutdown) {
      return CompletableFuture.failedFuture(new SinkException(name + " is shut down"));
    }
    if (down) {
      return CompletableFuture.failedFuture(new RetriableSinkException(name + " is down"));
    }
    if (failureRate > 0 && random.nextDouble() < failureRate) {
      received.addAll(batch.subList(0, random.nextInt(batch.size() + 1)));
      return CompletableFuture.failedFuture(new RetriableSinkException(name + " failed mid-batch"));
    }
    received.addAll(batch);
    return CompletableFuture.completedFuture(null);
  }

  public synchronized List<Envelope> received() {
    return List.copyOf(received);
  }

  /** Ids received, duplicates removed, in first-seen order. */
  public synchronized List<String> distinctIds() {
    LinkedHashSet<String> ids = new LinkedHashSet<>();
    received.forEach(e -> ids.add(e.id()));
    return List.copyOf(ids);
  }

  public synchronized int exports() {
    return exports;
  }

  @Override
  public CompletableFuture<Void> flush() {
    return CompletableFuture.completedFuture(null);
  }

  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized CompletableFuture<Void> shutdown() {
    shutdown = true;
    return CompletableFuture.completedFuture(null);
  }
}
