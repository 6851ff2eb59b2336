package dev.sebridge.approval;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rejections not reported one by one: how many, by reason, which records and when.
 *
 * @param total rejections counted
 * @param byReason counts by reason code label
 * @param firstRecord the first record counted (e.g. {@code commands/3@1042})
 * @param lastRecord the last record counted
 * @param since when the first was counted
 * @param until when the last was counted
 */
public record RejectionCounts(
    long total,
    Map<String, Long> byReason,
    String firstRecord,
    String lastRecord,
    Instant since,
    Instant until) {
  public RejectionCounts {
    byReason = Map.copyOf(new TreeMap<>(byReason));
  }
}
