package dev.sebridge.fleet;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The silent agents and the open events, kept change by change as the global views apply them
 * (never by scanning them): what the metrics and the page's silent section count and list. At
 * 100,000 VMs a scan of the VM views is 100,000 JSON documents, and a scrape or a page refresh ran
 * one. For these the silent VMs' ids and the open events' views are kept: their size follows what
 * is silent and open, not the fleet. The open events' views are kept as read (about 1.5 KB an event
 * of one VM, 20-25 MiB at 15,000 open events): the API's open-event pages and summaries read them
 * with no JSON, where a page of 50 read and parsed 50 views of up to thousands of VMs each.
 *
 * <p>The agents' results by outcome over every request the views hold ({@code
 * sebridge_fleet_approval_results}) are kept the same way: per request only its counts, an {@code
 * int} per outcome, dropped with the request's view ({@code fleet.history-retention}); at 100,000
 * requests about 15-20 MiB (the id, a map entry and a small array each), where a scrape read
 * 100,000 requests of up to thousands of VMs each.
 *
 * <p>The keys of the VM and event views, in the stores' order, are kept too: the API's pages start
 * at a cursor in them and read only the views they list ({@code FleetViews}), where a page read
 * through the in-memory store copied every key after the cursor first (100,000 at 100,000 VMs, for
 * a page of 50). About 100 bytes a key: 10 MiB at 100,000 VMs. Dropped with the view.
 *
 * <p>Written by the global thread only; read by any.
 */
public final class ViewTallies implements TopologyObserver {
  /**
   * The stores' order: their keys' UTF-8 bytes, unsigned, which is the order of code points. {@code
   * String}'s own order differs for a key with a character outside the Basic Multilingual Plane (a
   * surrogate pair sorts before U+E000-U+FFFF by {@code char}, after them by code point).
   */
  public static final java.util.Comparator<String> STORE_ORDER = ViewTallies::compareCodePoints;

  static int compareCodePoints(String a, String b) {
    // Up to the first unit that differs the two agree; there, two units outside the surrogates
    // (every vmId and EventId of Azure's) are two code points, ordered as their chars.
    int n = Math.min(a.length(), b.length());
    for (int k = 0; k < n; k++) {
      char x = a.charAt(k);
      char y = b.charAt(k);
      if (x != y) {
        return Character.isSurrogate(x) || Character.isSurrogate(y)
            ? byCodePoints(a, b)
            : Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  private static int byCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i);
      int y = b.codePointAt(j);
      if (x != y) {
        return Integer.compare(x, y);
      }
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private final ConcurrentSkipListSet<String> silent = new ConcurrentSkipListSet<>(STORE_ORDER);
  private volatile Runnable silentChanged = () -> {};
  private final ConcurrentSkipListMap<String, EventView> open =
      new ConcurrentSkipListMap<>(STORE_ORDER);
  private final ConcurrentSkipListSet<String> vmKeys = new ConcurrentSkipListSet<>(STORE_ORDER);
  private final ConcurrentSkipListSet<String> eventKeys = new ConcurrentSkipListSet<>(STORE_ORDER);

  /**
   * Outcomes seen, in the order first seen: an index into {@link #totals} and each request's
   * counts. The agents' results are validated against an enum of four and the fleet adds a few of
   * its own; anything past {@link #MAX_OUTCOMES} is counted as {@link #OTHER}.
   */
  static final int MAX_OUTCOMES = 16;

  static final String WAITING = "waiting";
  static final String OTHER = "other";
  private final List<String> outcomes = new CopyOnWriteArrayList<>(List.of(WAITING, OTHER));
  private final AtomicLongArray totals = new AtomicLongArray(MAX_OUTCOMES);
  private final Map<String, int[]> byRequest = new ConcurrentHashMap<>();

  @Override
  public void keyChanged(String store, String key, Object value) {
    switch (store) {
      case FleetTopology.VMS_VIEW -> {
        keep(vmKeys, key, value != null);
        // What the silent agents' list shows changed: an agent fell silent or was heard again,
        // or a silent one's view changed (a heartbeat of a live agent changes nothing there).
        boolean changed;
        if (value instanceof VmView v && v.silent()) {
          silent.add(key);
          changed = true;
        } else {
          changed = silent.remove(key);
        }
        if (changed) {
          silentChanged.run();
        }
      }
      case FleetTopology.EVENTS_VIEW -> {
        keep(eventKeys, key, value != null);
        if (value instanceof EventView e && e.open()) {
          open.put(key, e);
        } else {
          open.remove(key);
        }
      }
      case FleetTopology.REQUESTS_VIEW -> {
        int[] now = value instanceof RequestView r ? counts(r) : null;
        int[] before = now == null ? byRequest.remove(key) : byRequest.put(key, now);
        change(before, now);
      }
      default -> {
        // not counted
      }
    }
  }

  private static void keep(Set<String> keys, String key, boolean present) {
    if (present) {
      keys.add(key);
    } else {
      keys.remove(key);
    }
  }

  /** The VM views' keys (vmIds), in the store's order. */
  public NavigableSet<String> vmKeys() {
    return Collections.unmodifiableNavigableSet(vmKeys);
  }

  /** The event views' keys (lower-cased EventIds), in the store's order. */
  public NavigableSet<String> eventKeys() {
    return Collections.unmodifiableNavigableSet(eventKeys);
  }

  /** The open events' views by key, in the store's order (as the store has them now). */
  public NavigableMap<String, EventView> openEventViews() {
    return Collections.unmodifiableNavigableMap(open);
  }

  /**
   * Runs {@code then} (on the global thread, after the change is kept) whenever what the silent
   * agents' list shows changes: an agent fell silent or was heard again, or a silent one's view
   * changed. The page's live stream tells its silent section then, not at every heartbeat.
   */
  public ViewTallies onSilentChange(Runnable then) {
    this.silentChanged = then;
    return this;
  }

  /** The silent agents' VM view keys, in the store's order. */
  public NavigableSet<String> silentKeys() {
    return Collections.unmodifiableNavigableSet(silent);
  }

  /** Whether the agent of this VM view's key is silent now. */
  public boolean silent(String vmId) {
    return vmId != null && silent.contains(vmId);
  }

  /** Agents silent now. */
  public int silentCount() {
    return silent.size();
  }

  /** Events some VM has not finished. */
  public int openEvents() {
    return open.size();
  }

  /**
   * The agents' results for the commands of every request the views hold, by outcome ({@code
   * waiting} until one arrives); outcomes never seen, or no longer held, are left out.
   */
  public Map<String, Long> outcomes() {
    Map<String, Long> by = new TreeMap<>();
    for (int i = 0; i < outcomes.size(); i++) {
      long n = totals.get(i);
      if (n != 0) { // never negative; shown if it were, not hidden
        by.put(outcomes.get(i), n);
      }
    }
    return by;
  }

  /** Requests whose counts are held (each dropped with its view). */
  int requestsCounted() {
    return byRequest.size();
  }

  private int[] counts(RequestView r) {
    int[] c = new int[MAX_OUTCOMES];
    int highest = 0;
    for (RequestView.VmResult vm : r.vms().values()) {
      int i = index(vm.outcome() == null ? WAITING : vm.outcome());
      c[i]++;
      highest = Math.max(highest, i);
    }
    return java.util.Arrays.copyOf(c, highest + 1);
  }

  private int index(String outcome) {
    int i = outcomes.indexOf(outcome);
    if (i >= 0) {
      return i;
    }
    if (outcomes.size() == MAX_OUTCOMES) {
      return outcomes.indexOf(OTHER);
    }
    outcomes.add(outcome);
    return outcomes.size() - 1;
  }

  /**
   * Moves the totals from one request's counts to its new ones, outcome by outcome by the
   * difference only: a scrape meanwhile never sees the request's VMs missing.
   */
  private void change(int[] before, int[] now) {
    int n = Math.max(before == null ? 0 : before.length, now == null ? 0 : now.length);
    for (int i = 0; i < n; i++) {
      long d = at(now, i) - (long) at(before, i);
      if (d != 0) {
        totals.addAndGet(i, d);
      }
    }
  }

  private static int at(int[] counts, int i) {
    return counts == null || i >= counts.length ? 0 : counts[i];
  }

  @Override
  public void applied(Instant envelopeTime) {}

  @Override
  public void approvedAfter(Duration sinceScheduled) {}
}
