package dev.sebridge.fleet.agentless;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.ResultReport;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent of the VMs without one: reads the request processor's orders ({@code
 * <prefix>-acknowledgements}, read committed), acknowledges each scheduled event through Azure's
 * Maintenance API ({@link MaintenanceApi}) while the order is within its lifetime, and reports each
 * VM's outcome to the request's partition ({@code <prefix>-by-request}) as an agent reports its
 * results.
 *
 * <p>An order is acted on only when the requests view holds its request as the request processor
 * wrote it: audited, admitted by the fleet-wide ledger, for the same event, scheduled event and VMs
 * ({@link OrderChecks}); anything else reaches no Azure.
 *
 * <p>The outcomes and the orders' offsets are committed in one Kafka transaction: an order is
 * answered once. A failure between Azure's answer and the commit acknowledges the event again when
 * the order is read again (Azure takes a second acknowledgement as the first); no call starts, or
 * runs, past the order's lifetime. The ledger counts the event released from the admitted request
 * on, whatever the outcome. A consumer or producer that fails for good is closed and made again.
 */
public final class Acknowledger implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Acknowledger.class);

  /** How long a poll waits for orders. */
  static final Duration POLL = Duration.ofMillis(500);

  /** How long an order waits for this instance's view to show its request. */
  static final Duration VIEW_WAIT = OrderChecks.VIEW_WAIT;

  /** Waits after a failed transaction or a failed client: 0.5 s, doubling, at most 30 s. */
  private static final IntervalFunction BACKOFF =
      IntervalFunction.ofExponentialBackoff(Duration.ofMillis(500), 2.0, Duration.ofSeconds(30));

  private final Supplier<Consumer<String, byte[]>> consumers;
  private final Supplier<Producer<String, ResultReport>> producers;
  private final String ordersTopic;
  private final Clock clock;
  private final OrderSession.Parts parts;
  private final Thread thread;
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile boolean started;
  private volatile boolean healthy;
  private volatile Consumer<String, byte[]> current;

  /**
   * @param consumers make the consumer of the orders (its own group, read committed, no
   *     auto-commit); a new one after a failure
   * @param producers make the transactional producer of the outcomes
   * @param requests the requests view, by request id
   * @param events the events view, by EventId (throws while the views cannot be read): an order is
   *     not sent while it shows the event listing a VM the request did not count
   * @param counted told each committed outcome and how many VMs it was for (metrics)
   */
  public Acknowledger(
      Supplier<Consumer<String, byte[]>> consumers,
      Supplier<Producer<String, ResultReport>> producers,
      String ordersTopic,
      String resultsTopic,
      MaintenanceApi api,
      Clock clock,
      ObjectMapper json,
      Function<String, Optional<RequestView>> requests,
      Function<String, Optional<EventView>> events,
      BiConsumer<String, Integer> counted) {
    this.consumers = consumers;
    this.producers = producers;
    this.ordersTopic = ordersTopic;
    this.clock = clock;
    this.parts =
        new OrderSession.Parts(
            api,
            new OrderChecks(json, requests, events),
            clock,
            resultsTopic,
            counted,
            () -> closing.getCount() == 0);
    this.thread = DaemonThreads.named("fleet-acknowledger").newThread(this::run);
  }

  public Acknowledger start() {
    started = true;
    thread.start();
    return this;
  }

  /** Whether it is reading orders (false while it makes its clients again after a failure). */
  public boolean healthy() {
    return healthy;
  }

  private void run() {
    int failures = 0;
    while (closing.getCount() > 0) {
      Consumer<String, byte[]> consumer = null;
      Producer<String, ResultReport> producer = null;
      try {
        consumer = consumers.get();
        current = consumer;
        producer = producers.get();
        producer.initTransactions();
        consumer.subscribe(List.of(ordersTopic));
        healthy = true;
        OrderSession s = session(consumer, producer);
        int retries = 0;
        while (closing.getCount() > 0) {
          ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
          if (records.isEmpty()) {
            continue;
          }
          OrderSession.Answered a = s.answer(records);
          failures = 0;
          if (a == OrderSession.Answered.FAILED) {
            retries++;
            pause(BACKOFF.apply(retries));
          } else {
            retries = 0;
            if (a == OrderSession.Answered.WAITING) {
              pause(200);
            }
          }
        }
      } catch (WakeupException closed) {
        // close()
      } catch (RuntimeException e) {
        healthy = false;
        failures++;
        LOG.error(
            "the acknowledger failed; making its Kafka clients again (approvals of VMs without an"
                + " agent wait meanwhile)",
            e);
      } finally {
        healthy = false;
        Consumer<String, byte[]> reading = consumer;
        closeQuietly(reading == null ? null : () -> reading.close(Duration.ofSeconds(5)));
        Producer<String, ResultReport> made = producer;
        closeQuietly(made == null ? null : () -> made.close(Duration.ofSeconds(5)));
      }
      if (failures > 0) {
        pause(BACKOFF.apply(failures));
      }
    }
  }

  private static void closeQuietly(Runnable close) {
    if (close == null) {
      return;
    }
    try {
      close.run();
    } catch (RuntimeException e) {
      LOG.warn("acknowledger: closing a Kafka client failed", e);
    }
  }

  /** Waits this long, or until closed. */
  private void pause(long millis) {
    try {
      closing.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closing.countDown();
    }
  }

  /** A session of this acknowledger over these clients (its run loop makes one per client pair). */
  OrderSession session(Consumer<String, byte[]> consumer, Producer<String, ResultReport> producer) {
    return new OrderSession(consumer, producer, parts);
  }

  @Override
  public void close() {
    closing.countDown();
    if (!started) {
      return;
    }
    Consumer<String, byte[]> c = current;
    if (c != null) {
      try {
        c.wakeup();
      } catch (RuntimeException closedAlready) {
        // being made again, or closed: the latch ends the loop
      }
    }
    try {
      // A call to Azure in flight ends by MaintenanceApi.CALL_TIMEOUT at the latest.
      thread.join(MaintenanceApi.CALL_TIMEOUT.plusSeconds(10).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
