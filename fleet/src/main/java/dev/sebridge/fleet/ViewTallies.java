package dev.sebridge.fleet;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The silent agents and the open events, kept change by change as the global views apply them
 * (never by scanning them): what the metrics and the page's silent section count and list. At
 * 100,000 VMs a scan of the VM views is 100,000 JSON documents, and a scrape or a page refresh ran
 * one. Only the silent VMs' and the open events' ids are kept, so its size follows what is silent
 * and open, not the fleet.
 *
 * <p>Written by the global thread only; read by any.
 */
public final class ViewTallies implements TopologyObserver {
  private final ConcurrentSkipListSet<String> silent = new ConcurrentSkipListSet<>();
  private final Set<String> open = ConcurrentHashMap.newKeySet();

  @Override
  public void keyChanged(String store, String key, Object value) {
    switch (store) {
      case FleetTopology.VMS_VIEW -> {
        if (value instanceof VmView v && v.silent()) {
          silent.add(key);
        } else {
          silent.remove(key);
        }
      }
      case FleetTopology.EVENTS_VIEW -> {
        if (value instanceof EventView e && e.open()) {
          open.add(key);
        } else {
          open.remove(key);
        }
      }
      default -> {
        // not counted
      }
    }
  }

  /** Agents silent now. */
  public int silentCount() {
    return silent.size();
  }

  /** The first {@code n} silent agents' vmIds, in key order (the VM view's keys). */
  public List<String> firstSilent(int n) {
    return silent.stream().limit(n).toList();
  }

  /** Events some VM has not finished. */
  public int openEvents() {
    return open.size();
  }

  @Override
  public void applied(Instant envelopeTime) {}

  @Override
  public void approvedAfter(Duration sinceScheduled) {}
}
