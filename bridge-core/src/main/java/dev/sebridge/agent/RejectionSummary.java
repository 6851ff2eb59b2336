package dev.sebridge.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.approval.ReasonCode;
import dev.sebridge.approval.RejectionCounts;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Keeps rejected commands from flooding the log and the events topic: in each interval the first
 * {@code individually} rejections get their own result envelope and log line; the ones after that
 * are counted (by reason, with the range of records) and reported at the end of the interval in one
 * summary result and one log line. The metrics count every rejection.
 *
 * <p>Its state travels with the command journal, so a crash loses no count.
 */
final class RejectionSummary {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int individually;
  private final Duration interval;
  private Instant windowStart;
  private int reportedInWindow;
  private final Map<String, Long> byReason = new TreeMap<>();
  private long total;
  private String firstRecord;
  private String lastRecord;
  private Instant since;
  private Instant until;

  RejectionSummary(int individually, Duration interval) {
    this.individually = individually;
    this.interval = interval;
  }

  /** True when this rejection gets its own result; false when it is only counted. */
  boolean reportIndividually(Instant now) {
    roll(now);
    if (reportedInWindow < individually) {
      reportedInWindow++;
      return true;
    }
    return false;
  }

  private void roll(Instant now) {
    if (windowStart == null || !now.isBefore(windowStart.plus(interval))) {
      windowStart = now;
      reportedInWindow = 0;
    }
  }

  void count(ReasonCode code, String record, Instant now) {
    byReason.merge(code.label(), 1L, Long::sum);
    total++;
    if (firstRecord == null) {
      firstRecord = record;
      since = now;
    }
    lastRecord = record;
    until = now;
  }

  /** The counts to report, once their interval is over; they are then reset. */
  Optional<RejectionCounts> due(Instant now) {
    if (total == 0 || now.isBefore(since.plus(interval))) {
      return Optional.empty();
    }
    RejectionCounts c = new RejectionCounts(total, byReason, firstRecord, lastRecord, since, until);
    byReason.clear();
    total = 0;
    firstRecord = null;
    lastRecord = null;
    since = null;
    until = null;
    return Optional.of(c);
  }

  /** The pending counts as JSON, for the journal (null when nothing is pending). */
  JsonNode toJson() {
    if (total == 0) {
      return null;
    }
    ObjectNode n = JSON.createObjectNode();
    n.put("total", total);
    ObjectNode r = n.putObject("byReason");
    byReason.forEach(r::put);
    n.put("firstRecord", firstRecord);
    n.put("lastRecord", lastRecord);
    n.put("since", since.toString());
    n.put("until", until.toString());
    return n;
  }

  /** Restores pending counts written by {@link #toJson}. */
  void restore(JsonNode n) {
    if (n == null || n.isNull() || n.path("total").asLong() == 0) {
      return;
    }
    total = n.get("total").asLong();
    n.path("byReason")
        .fields()
        .forEachRemaining(e -> byReason.put(e.getKey(), e.getValue().asLong()));
    firstRecord = n.path("firstRecord").asText(null);
    lastRecord = n.path("lastRecord").asText(null);
    since = Instant.parse(n.get("since").asText());
    until = Instant.parse(n.get("until").asText());
  }
}
