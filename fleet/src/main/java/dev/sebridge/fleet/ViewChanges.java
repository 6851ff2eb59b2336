package dev.sebridge.fleet;

import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the changes of this instance's views, store by store; the web page's live stream reads the
 * counts to say which parts of the page changed.
 */
public final class ViewChanges implements TopologyObserver {
  /**
   * Not a store: the silent agents' list, told by {@link ViewTallies#onSilentChange} (an agent fell
   * silent or was heard again), where the VMs' view changes at every heartbeat.
   */
  public static final String SILENT_AGENTS = "silent-agents";

  private final Map<String, AtomicLong> versions = new ConcurrentHashMap<>();

  @Override
  public void applied(Instant envelopeTime) {}

  @Override
  public void approvedAfter(Duration sinceScheduled) {}

  @Override
  public void viewChanged(String store) {
    versions.computeIfAbsent(store, s -> new AtomicLong()).incrementAndGet();
  }

  /**
   * A deletion counts as a change (a view's writes are told through {@link #viewChanged}, its
   * deletions only here): an inventory entry deleted makes its VM unknown on the page, and
   * retention's deletions take rows off it.
   */
  @Override
  public void keyChanged(String store, String key, Object value) {
    if (value == null) {
      viewChanged(store);
    }
  }

  /** How many changes {@code store} has seen on this instance. */
  public long version(String store) {
    AtomicLong v = versions.get(store);
    return v == null ? 0 : v.get();
  }
}
