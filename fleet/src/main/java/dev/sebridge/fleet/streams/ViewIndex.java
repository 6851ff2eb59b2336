package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the rollouts task asks of the global views every tick, kept up to date change by change
 * instead of scanned ({@link IndexContents}): a tick then reads nothing fleet-sized and
 * deserialises nothing (but a closed event's view, kept packed, the first step that asks for it:
 * later steps that ask again have it): at 100,000 VMs a scan of the VM views is 100,000 JSON
 * documents, each second.
 *
 * <p>The global stores' updaters (the global thread) hand each change to {@link #changed}; the
 * rollouts task's thread takes them in at the start of each step ({@link #refresh}). Changes wait
 * coalesced by key, only the newest of each, and as little as a rollout needs (a VM's facts, not
 * its view; a request's event and the results that did not accept): at most one entry per key of
 * the views, however long the task did not step. Nothing waits while no rollouts task uses the
 * index ({@link #attach}, {@link #detach}).
 *
 * <p>The first step after attaching reads the stores whole, on the task's thread: it has nothing to
 * step on before. So does the first step {@link #RETRY_AFTER_FAILURE} after one that failed: a
 * change that cannot be taken in (a view the index cannot read) fails the step, and every step
 * after it until the stores can be read whole, never a step on an index without the change.
 *
 * <p>Every {@link #REBUILD_EVERY}, a safety net that should find nothing to repair reads the stores
 * whole again, off the task's thread (at 100,000 VMs it takes seconds, and the task's thread serves
 * every view). The steps meanwhile go on with the index as the changes keep it; the changes taken
 * in since the read began are noted. The first step after the read ends puts those changes on top
 * of what it read (each key as new as the index has it), compares the two, counts and logs (a WARN)
 * the keys that differ, and goes on with the new one. A read that fails is done again on the task's
 * thread, with the failure's consequences above.
 */
final class ViewIndex {
  private static final Logger LOG = LoggerFactory.getLogger(ViewIndex.class);

  /** How often the index is read again whole from the stores, whatever the changes said. */
  static final Duration REBUILD_EVERY = Duration.ofMinutes(10);

  /** After a step that could not read the views, how long until the next tries again. */
  static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(30);

  /** The stores the index reads whole when it (re)builds. */
  record Stores(
      ReadOnlyKeyValueStore<String, VmView> vms,
      ReadOnlyKeyValueStore<String, EventView> events,
      ReadOnlyKeyValueStore<String, RequestView> requests,
      ReadOnlyKeyValueStore<String, dev.sebridge.fleet.model.InventoryVm> inventory) {
    /** Without an inventory. */
    Stores(
        ReadOnlyKeyValueStore<String, VmView> vms,
        ReadOnlyKeyValueStore<String, EventView> events,
        ReadOnlyKeyValueStore<String, RequestView> requests) {
      this(vms, events, requests, null);
    }
  }

  /** A key of one of the views. */
  record Key(String store, String key) {}

  /** A key deleted, or a request that sent nothing (a map holds no null). */
  static final Object NONE = new Object();

  /** Runs each whole read off the task's thread on a thread of its own (one each 10 minutes). */
  private static final Executor OWN_THREAD =
      r -> {
        Thread t = new Thread(r, "fleet-view-index-check");
        t.setDaemon(true);
        t.start();
      };

  /**
   * A whole read running off the task's thread.
   *
   * @param read what it read; done when it ended
   * @param taken what the task took in since it began: the newest of each key
   */
  private record Check(
      CompletableFuture<IndexContents> read, Instant startedAt, Map<Key, Object> taken) {}

  // Written by the global thread, taken in by the rollouts task's thread.
  private final ConcurrentHashMap<Key, Object> pending = new ConcurrentHashMap<>();
  private volatile boolean attached;
  private volatile boolean unreadable;

  // The rollouts task's thread only.
  private final Membership membership;
  private final Executor checks;
  private IndexContents live;
  private Check check;
  private Instant builtAt;
  private Instant failedAt;
  private int repairs;
  private int reads;

  ViewIndex(Membership membership) {
    this(membership, OWN_THREAD);
  }

  /**
   * @param checks where the whole reads every {@link #REBUILD_EVERY} run
   */
  ViewIndex(Membership membership, Executor checks) {
    this.membership = membership;
    this.checks = checks;
    this.live = new IndexContents(membership);
  }

  /** Whether membership comes from Azure's inventory (its store is then read too). */
  boolean inventoried() {
    return membership == Membership.INVENTORY;
  }

  /**
   * A global store applied a change ({@code value} null: the key was deleted). Called by the
   * store's updater, after the store has it; ignored while no rollouts task uses the index. Never
   * throws (it runs on the global thread): a value it cannot read marks the index for a whole read,
   * which then fails the step.
   */
  void changed(String store, String key, Object value) {
    if (!attached) {
      return;
    }
    try {
      Object kept = IndexedViews.keep(store, value, membership);
      if (kept != null) {
        pending.put(new Key(store, key), kept);
      }
    } catch (RuntimeException e) {
      unreadable = true;
      LOG.error("view index: cannot read the change of {} in {}", key, store, e);
    }
  }

  /** A rollouts task uses the index from now on: its first step reads the stores whole. */
  void attach() {
    attached = true;
    builtAt = null;
    check = null;
  }

  /** The rollouts task left: nothing waits, and nothing is kept, until one attaches again. */
  void detach() {
    attached = false;
    pending.clear();
    live = new IndexContents(membership);
    check = null; // a read still running is let go: nobody takes what it read
    builtAt = null;
    failedAt = null;
  }

  /**
   * Brings the index up to date with what the stores applied: called at the start of a step.
   *
   * @throws RuntimeException when a change or a store cannot be read: the step must not go on, and
   *     the next one reads the stores whole again
   */
  void refresh(Stores stores, Instant now) {
    if (failedAt != null && now.isBefore(failedAt.plus(RETRY_AFTER_FAILURE))) {
      throw new IllegalStateException(
          "the view index could not read the views at "
              + failedAt
              + "; read again from "
              + failedAt.plus(RETRY_AFTER_FAILURE));
    }
    try {
      if (builtAt != null && !unreadable) {
        // What waits first: it was in the stores before a read that starts now begins.
        takeIn();
        if (check != null
            && !check.read().isDone()
            && !now.isBefore(check.startedAt().plus(REBUILD_EVERY))) {
          LOG.warn(
              "view index: the whole read begun at {} has not ended; let go, and read again",
              check.startedAt());
          check = null;
        }
        if (check == null && !now.isBefore(builtAt.plus(REBUILD_EVERY))) {
          startCheck(stores, now);
        }
        if (check != null && check.read().isDone()) {
          endCheck();
        }
      }
      if (builtAt == null || unreadable) {
        check = null;
        rebuild(stores, now);
      }
      takeIn();
      live.stepped();
      failedAt = null;
    } catch (RuntimeException e) {
      builtAt = null;
      failedAt = now;
      check = null;
      LOG.error(
          "view index: cannot read the views; nothing is stepped or released until it can (read"
              + " again in {})",
          RETRY_AFTER_FAILURE,
          e);
      throw e;
    }
  }

  private void takeIn() {
    for (Key k : pending.keySet()) {
      Object v = pending.remove(k);
      if (v != null) {
        live.apply(k.store(), k.key(), v);
        if (check != null) {
          check.taken().put(k, v);
        }
      }
    }
  }

  /** Reads the stores whole on the task's thread: the first step, or one after a failure. */
  private void rebuild(Stores stores, Instant now) {
    // What waits is let go first: the read takes each key at least as new (a change is handed
    // over after its store has it), and a change handed over after this is taken in on top.
    pending.clear();
    unreadable = false;
    live = IndexedViews.read(stores, membership, List.of(), true);
    builtAt = now;
    reads++;
  }

  /**
   * Starts a whole read off the task's thread, right after the step took in what waited. Every
   * change taken in until now was in its store before it was handed over, so before the read
   * begins: the read takes it, or a newer one (a change nobody told of among them: drift, which the
   * read repairs). Only what is taken in from now on goes on top of the read.
   */
  private void startCheck(Stores stores, Instant now) {
    Collection<List<String>> counted = live.groupings();
    check =
        new Check(
            CompletableFuture.supplyAsync(
                () -> IndexedViews.read(stores, membership, counted), checks),
            now,
            new HashMap<>());
  }

  /**
   * The whole read ended: the changes taken in since it began go on top of it, so each key is as
   * new as in the index (a newer one still waits, and is taken in next); then it replaces the
   * index. A key that differs and did not change meanwhile was missed by the changes: counted, and
   * logged.
   */
  private void endCheck() {
    Check c = check;
    check = null;
    IndexContents read;
    try {
      read = c.read().join();
    } catch (RuntimeException e) {
      LOG.warn("view index: the whole read off the task's thread failed; reading again on it", e);
      unreadable = true; // read again now, on this thread: a failure there fails the step
      return;
    }
    c.taken().forEach((k, v) -> read.apply(k.store(), k.key(), v));
    Set<Key> moving = new HashSet<>(pending.keySet());
    // A known VM's facts follow its inventory record too (IndexContents.placed): a record still
    // coming brings its VM's facts with it.
    for (Key k : pending.keySet()) {
      if (k.store().equals(FleetTopology.INVENTORY_VIEW)) {
        moving.add(new Key(FleetTopology.VMS_VIEW, k.key()));
      }
    }
    int differ = live.differences(read, moving);
    if (differ > 0) {
      repairs++;
      LOG.warn(
          "view index: {} view(s) differed from what their changes said; read whole again: {}",
          differ,
          read.sizes());
    }
    read.keepRead(live);
    live = read;
    builtAt = c.startedAt();
    reads++;
  }

  /** How many whole reads found the index differing from the views (expected: none). */
  int repairs() {
    return repairs;
  }

  /** How many whole reads were taken into use. */
  int reads() {
    return reads;
  }

  /**
   * What the index keeps, as of the last {@link #refresh}: read on the rollouts task's thread,
   * within its step.
   */
  IndexContents contents() {
    return live;
  }
}
