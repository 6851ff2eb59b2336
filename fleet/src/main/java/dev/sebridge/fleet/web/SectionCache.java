package dev.sebridge.fleet.web;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The page's sections, rendered once for every page that asks for the same one: the live stream
 * tells every open page of a change in the same tick, and each page asks for the section again at
 * once; 200 pages asked for 200 renders of the same views (the benchmark's 200 live pages took the
 * API's p99 from 9 ms to 125 ms at 2,000 VMs). A section is rendered again when the views it shows
 * changed since ({@code version}: {@link LiveStream#version}), or after {@link #MAX_AGE} (what it
 * shows beside its own views, a VM's status in an event's row, is at most that old); while one
 * render is under way, the requests for the same section wait for it and share it when it read
 * views at least as new as they asked for (never an answer older than the request). Bounded: at
 * most {@code slots} renderings, the least recently asked for dropped first.
 */
final class SectionCache {
  /** The oldest a rendering is served. */
  static final Duration MAX_AGE = Duration.ofSeconds(5);

  /** The longest a request waits for another's rendering before it renders itself. */
  private static final Duration WAIT = Duration.ofSeconds(10);

  private record Rendered(long version, long at, String html) {}

  private static final class Slot {
    Rendered rendered;
    boolean rendering;
  }

  private final Map<String, Slot> slots;
  private final LongSupplier nanos;

  /** A cache of at most this many renderings. */
  SectionCache(int slots) {
    this(System::nanoTime, slots);
  }

  SectionCache(LongSupplier nanos, int slots) {
    this.nanos = nanos;
    this.slots =
        Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
              @Override
              protected boolean removeEldestEntry(Map.Entry<String, Slot> eldest) {
                // (the requests waiting on a slot dropped still get its rendering; a new request
                // for it renders again)
                return size() > slots;
              }
            });
  }

  /**
   * The section {@code key}'s rendering of views at least as new as {@code version} says now.
   *
   * @param version the section's views' changes so far (read once, before and after the render)
   * @param render renders it; what it throws, the request that ran it throws
   */
  String get(String key, LongSupplier version, Supplier<String> render) {
    long asked = version.getAsLong();
    Slot slot = slots.computeIfAbsent(key, k -> new Slot());
    boolean owner; // this request's rendering is the one the others wait for
    synchronized (slot) {
      long deadline = nanos.getAsLong() + WAIT.toNanos();
      while (true) {
        Rendered r = slot.rendered;
        if (r != null && r.version() >= asked && nanos.getAsLong() - r.at() < MAX_AGE.toNanos()) {
          return r.html();
        }
        long left = deadline - nanos.getAsLong();
        if (!slot.rendering || left <= 0) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(slot, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      // A request that waited past its bound renders beside the one under way, and leaves the
      // waiting to it.
      owner = !slot.rendering;
      slot.rendering = true;
    }
    String html = null;
    long from = 0;
    long at = 0;
    try {
      from = version.getAsLong(); // the views it reads are at least this new
      at = nanos.getAsLong();
      html = render.get();
      return html;
    } finally {
      synchronized (slot) {
        if (owner) {
          slot.rendering = false;
        }
        if (html != null && (slot.rendered == null || slot.rendered.version() <= from)) {
          slot.rendered = new Rendered(from, at, html);
        }
        slot.notifyAll();
      }
    }
  }
}
