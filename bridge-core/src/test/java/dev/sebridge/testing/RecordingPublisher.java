package dev.sebridge.testing;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.outbox.EnvelopePublisher;
import dev.sebridge.schemas.EnvelopeValidator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A publisher that keeps what it is given (after checking each envelope against its schema), and
 * can run a hook on each publish: block on a latch, or fail like a crash.
 */
public final class RecordingPublisher implements EnvelopePublisher {
  private final List<Envelope> published = new ArrayList<>();
  private volatile Consumer<List<Envelope>> beforeEach = batch -> {};

  /** Runs before each publish is recorded (it may throw, or block). */
  public RecordingPublisher beforeEach(Consumer<List<Envelope>> hook) {
    this.beforeEach = hook;
    return this;
  }

  @Override
  public void publish(List<Envelope> envelopes) {
    beforeEach.accept(envelopes);
    for (Envelope e : envelopes) {
      List<String> problems = EnvelopeValidator.validate(e.body());
      if (!problems.isEmpty()) {
        throw new AssertionError("invalid envelope " + e + ": " + problems);
      }
    }
    synchronized (published) {
      published.addAll(envelopes);
    }
  }

  public List<Envelope> published() {
    synchronized (published) {
      return List.copyOf(published);
    }
  }

  /** Published envelopes of this CloudEvents type. */
  public List<Envelope> ofType(String type) {
    return published().stream().filter(e -> e.type().equals(type)).toList();
  }

  @Override
  public List<String> problems() {
    return List.of();
  }

  @Override
  public void close(Duration timeout) {}
}
