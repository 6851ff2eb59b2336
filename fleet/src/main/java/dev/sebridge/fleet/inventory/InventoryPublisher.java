package dev.sebridge.fleet.inventory;

import dev.sebridge.fleet.model.InventoryVm;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one writer of {@code <prefix>-inventory}: every {@code fleet.inventory.refresh} it reads
 * Azure's inventory whole and writes what differs from the inventory the views hold: each VM new or
 * changed, and a tombstone for each VM no longer listed (deleted, or out of scope). The topic is
 * compacted, so it holds one record per VM Azure lists: it grows with the fleet and shrinks with
 * it, nothing else.
 *
 * <p>A read that fails writes nothing (an incomplete list would make VMs unknown: never counted,
 * rollouts held) and is tried again {@link #RETRY_AFTER} later. Every instance of the service runs
 * one, and only the one that runs the rollouts task reads and writes ({@code writes}; the others
 * look again every {@link #OWNER_CHECK}): two instances writing reads of Azure taken at different
 * moments undid each other, the older read putting back a VM's resource group from before a move
 * (the group it joined then lost it while it was down) or a VM Azure had deleted.
 */
public final class InventoryPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(InventoryPublisher.class);

  /** After a refresh that failed, how long until the next. */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(30);

  /**
   * How often an instance that does not write looks whether it does now: its streams' own state,
   * read in memory, so an instance starting (or a failover's new owner) reads Azure within a second
   * of running the rollouts task. (15 s before: every start waited up to 15 s for its first read,
   * the views' VMs unknown meanwhile; the demo too.)
   */
  static final Duration OWNER_CHECK = Duration.ofSeconds(1);

  /** How long a refresh waits for the broker to take its records. */
  static final Duration SEND_TIMEOUT = Duration.ofSeconds(60);

  /** What one refresh did. */
  public record Refresh(int listed, int written, int removed) {}

  private final Supplier<Map<String, InventoryVm>> source;
  private final Supplier<ReadOnlyKeyValueStore<String, InventoryVm>> held;
  private final Producer<String, InventoryVm> producer;
  private final String topic;
  private final Clock clock;
  private final java.util.function.BooleanSupplier writes;
  private final AtomicReference<Instant> refreshedAt = new AtomicReference<>();
  private ScheduledExecutorService scheduler;
  private final List<Runnable> alsoEachRefresh = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * @param source reads the inventory whole (throws when it cannot)
   * @param held the inventory the views hold now
   * @param writes whether this instance is the one that reads and writes the inventory now ({@link
   *     dev.sebridge.fleet.streams.RolloutsOwner})
   */
  public InventoryPublisher(
      Supplier<Map<String, InventoryVm>> source,
      Supplier<ReadOnlyKeyValueStore<String, InventoryVm>> held,
      Producer<String, InventoryVm> producer,
      String topic,
      Clock clock,
      java.util.function.BooleanSupplier writes) {
    this.source = source;
    this.held = held;
    this.producer = producer;
    this.topic = topic;
    this.clock = clock;
    this.writes = writes;
  }

  /** A publisher that always writes (one instance). */
  public InventoryPublisher(
      Supplier<Map<String, InventoryVm>> source,
      Supplier<ReadOnlyKeyValueStore<String, InventoryVm>> held,
      Producer<String, InventoryVm> producer,
      String topic,
      Clock clock) {
    this(source, held, producer, topic, clock, () -> true);
  }

  /**
   * When the last refresh that succeeded finished on this instance (null: none yet, or this
   * instance does not write the inventory).
   */
  public Instant refreshedAt() {
    return refreshedAt.get();
  }

  /**
   * Reads the inventory and writes what differs from the views'.
   *
   * @throws RuntimeException when the inventory or the views cannot be read, or the broker does not
   *     take every record: nothing is removed then, and the next refresh writes it all again
   */
  public Refresh refresh() {
    Map<String, InventoryVm> listed = source.get();
    Map<String, InventoryVm> before = new HashMap<>();
    try (KeyValueIterator<String, InventoryVm> it = held.get().all()) {
      it.forEachRemaining(kv -> before.put(kv.key, kv.value));
    }
    List<KeyValue<String, InventoryVm>> writes = new ArrayList<>();
    listed.forEach(
        (key, vm) -> {
          if (!Objects.equals(before.get(key), vm)) {
            writes.add(KeyValue.pair(key, vm));
          }
        });
    int removed = 0;
    for (String key : before.keySet()) {
      if (!listed.containsKey(key)) {
        writes.add(KeyValue.pair(key, null));
        removed++;
      }
    }
    if (listed.isEmpty() && !before.isEmpty()) {
      throw new IllegalStateException(
          "Resource Graph lists no VMs where the views hold "
              + before.size()
              + ": not applied (check fleet.inventory.* and the identity's Reader role; Resource"
              + " Graph leaves out what it may not read)");
    }
    if (!before.isEmpty() && listed.size() < before.size() / 2) {
      LOG.warn(
          "inventory: Azure lists {} VMs, the views held {}: check the scope and the identity's"
              + " Reader role (Resource Graph leaves out what it may not read)",
          listed.size(),
          before.size());
    }
    if (!this.writes.getAsBoolean()) {
      // (the read took a while, and this instance stopped running the rollouts task meanwhile)
      throw new IllegalStateException(
          "this instance no longer runs the rollouts task: the read is not written");
    }
    send(writes);
    refreshedAt.set(clock.instant());
    LOG.info(
        "inventory: {} VMs listed, {} written, {} removed",
        listed.size(),
        writes.size() - removed,
        removed);
    return new Refresh(listed.size(), writes.size() - removed, removed);
  }

  private void send(List<KeyValue<String, InventoryVm>> writes) {
    List<Future<RecordMetadata>> sent = new ArrayList<>(writes.size());
    try {
      for (KeyValue<String, InventoryVm> kv : writes) {
        sent.add(producer.send(new ProducerRecord<>(topic, kv.key, kv.value)));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing the inventory", e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      throw new IllegalStateException("the inventory could not be written to " + topic, e);
    }
  }

  /**
   * Runs {@code task} after each refresh, on the same thread, whether the refresh succeeded or not
   * (a task that throws is logged and tried again at the next refresh): another read of Resource
   * Graph with the same identity and scope.
   */
  public void alsoEachRefresh(Runnable task) {
    alsoEachRefresh.add(task);
  }

  /** Refreshes now and every {@code period} after, on a thread of its own. */
  public synchronized void start(Duration period) {
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sebridge-fleet-inventory");
              t.setDaemon(true);
              return t;
            });
    scheduler.schedule(() -> run(period), 0, TimeUnit.MILLISECONDS);
  }

  private void run(Duration period) {
    schedule(period, runOnce(period));
  }

  /**
   * One turn of its thread: a refresh and the tasks after it where this instance writes the
   * inventory, nothing where it does not. Returns how long until the next turn.
   */
  Duration runOnce(Duration period) {
    if (!writes.getAsBoolean()) {
      // Another instance runs the rollouts task and writes the inventory (or none does, during a
      // rebalance): nothing read, nothing written; looked at again soon, so that a failover's new
      // owner refreshes within seconds.
      if (refreshedAt.getAndSet(null) != null) {
        LOG.info("inventory: another instance runs the rollouts task now and writes the inventory");
      }
      return OWNER_CHECK.compareTo(period) < 0 ? OWNER_CHECK : period;
    }
    Duration next = period;
    try {
      refresh();
    } catch (RuntimeException e) {
      next = RETRY_AFTER.compareTo(period) < 0 ? RETRY_AFTER : period;
      LOG.error("inventory: refresh failed; nothing written, next try in {}", next, e);
    }
    for (Runnable task : alsoEachRefresh) {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.error("after the inventory refresh: {} failed; tried again at the next", task, e);
      }
    }
    return next;
  }

  private synchronized void schedule(Duration period, Duration next) {
    if (scheduler != null && !scheduler.isShutdown()) {
      scheduler.schedule(() -> run(period), next.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void close() {
    ScheduledExecutorService s;
    synchronized (this) {
      s = scheduler;
      if (s != null) {
        s.shutdownNow();
      }
    }
    if (s != null) {
      try {
        // a refresh (or a task after it) under way finishes before its producers close; outside
        // the lock, which the refresh thread takes to schedule the next
        s.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    producer.close(Duration.ofSeconds(5));
  }
}
