package dev.sebridge.agent;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.Configuration;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.CommandSourceProvider;
import dev.sebridge.spi.ReceivedCommand;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A command source for tests whose {@link CommandSource#open} fails with a runtime error the first
 * {@link #failures} times (after {@link #openGate} opens, if set), then reads nothing.
 */
public final class FailingCommandSourceProvider implements CommandSourceProvider {
  static final String NAME = "test-failing";
  static final AtomicInteger failures = new AtomicInteger();
  static final AtomicInteger opened = new AtomicInteger();

  /** When set, {@code open} waits for it: the source is still connecting. */
  static volatile java.util.concurrent.CountDownLatch openGate;

  /**
   * When set, {@code poll} hangs on it, deaf to the pump's closing, until interrupted; it then
   * throws with the thread's interrupt flag set, as Kafka's consumer does (its {@code
   * InterruptException}) when a broker is gone.
   */
  static volatile java.util.concurrent.CountDownLatch pollGate;

  /** Polls begun. */
  static final AtomicInteger polls = new AtomicInteger();

  /** Polls held by {@link #pollGate}. */
  static final AtomicInteger held = new AtomicInteger();

  /** When set, the source reads from this position (as Kafka's does: an offset). */
  static volatile Long position;

  /** When set, each poll moves {@link #position} one on (a record of another VM's read). */
  static volatile boolean advancing;

  /** When set, the source does not know it read everything (Kafka before its first fetch). */
  static volatile boolean notAtEnd;

  /** Times a source was asked whether it read everything. */
  static final AtomicInteger endAsked = new AtomicInteger();

  /** Sources told to read one record at a time. */
  static final AtomicInteger oneAtATime = new AtomicInteger();

  /**
   * When set, {@code close} hangs on it, deaf to interrupts, as Kafka's admin client's close does
   * while a call is pending.
   */
  static volatile java.util.concurrent.CountDownLatch closeGate;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of();
  }

  @Override
  public CommandSource create(Configuration config, String vmId) {
    return new CommandSource() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public void open(Optional<String> position) {
        opened.incrementAndGet();
        java.util.concurrent.CountDownLatch gate = openGate;
        if (gate != null) {
          try {
            gate.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        if (failures.getAndDecrement() > 0) {
          throw new IllegalStateException("simulated failure opening the source");
        }
      }

      @Override
      public List<ReceivedCommand> poll(Duration timeout) {
        polls.incrementAndGet();
        Long p = position;
        if (advancing && p != null) {
          position = p + 1;
        }
        java.util.concurrent.CountDownLatch gate = pollGate;
        if (gate != null) {
          held.incrementAndGet();
          try {
            gate.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in a read", e);
          }
        }
        return List.of();
      }

      @Override
      public boolean atEnd() {
        endAsked.incrementAndGet();
        return !notAtEnd; // it never has a record
      }

      @Override
      public void readOneAtATime() {
        oneAtATime.incrementAndGet();
      }

      @Override
      public java.util.OptionalLong readPosition() {
        Long p = position;
        return p == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(p);
      }

      @Override
      public void close() {
        java.util.concurrent.CountDownLatch gate = closeGate;
        while (gate != null && gate.getCount() > 0) {
          try {
            gate.await();
          } catch (InterruptedException e) {
            // deaf to it
          }
        }
      }
    };
  }
}
