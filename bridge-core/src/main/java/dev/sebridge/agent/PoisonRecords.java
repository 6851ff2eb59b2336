package dev.sebridge.agent;

import dev.sebridge.spi.CommandSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the command pump does about the deaths its reading marker counted ({@link ReadingMarker}):
 * reads carefully after a death, and skips a record that killed the agent {@link
 * ReadingMarker#MAX_CRASHES} times.
 */
final class PoisonRecords {
  private static final Logger LOG = LoggerFactory.getLogger(CommandPump.class);

  private PoisonRecords() {}

  /**
   * After a death while reading (the last run did not stop cleanly), the records from the position
   * it died at are read one at a time ({@link CommandSource#readOneAtATime}), so that the next
   * death is counted at the record that causes it: up to {@link CommandPump#CAREFUL_RECORDS}
   * records on, which covers every record one read could hand over or decode (Kafka's {@code
   * max.poll.records}, Event Hubs' events taken ahead). Returns the last such position, or -1.
   */
  static long careful(ReadingMarker marker) {
    if (marker.crashes() == 0) {
      return -1;
    }
    long until = marker.position() + CommandPump.CAREFUL_RECORDS;
    LOG.info(
        "the agent died reading approval commands at position {} ({} time(s) in a row): reading"
            + " them one record at a time up to position {}; a record that kills it {} times is"
            + " skipped",
        marker.position(),
        marker.crashes(),
        until,
        ReadingMarker.MAX_CRASHES);
    return until;
  }

  /**
   * Once per start: if the agent died reading at the same position {@link
   * ReadingMarker#MAX_CRASHES} times, the record there is skipped, with a {@code poison-record}
   * result, so a record that breaks the source cannot keep the agent in a crash loop.
   */
  static void skip(ReadingMarker marker, CommandSource source, CommandHandler h, long poison)
      throws InterruptedException {
    java.util.Optional<CommandSource.Skipped> skipped = source.skipAt(poison);
    if (skipped.isPresent()) {
      LOG.error(
          "skipped the record at {}: the agent died reading there {} times",
          skipped.get().record(),
          ReadingMarker.MAX_CRASHES);
      // The position after it first, then the marker: a death in between finds the record read
      // already (nothing to skip at its position). The other way round, the deaths of the record
      // read again from the old position would be counted one past it, and the skip would take
      // the record after it.
      h.poison(skipped.get(), ReadingMarker.MAX_CRASHES);
      marker.skipped(true);
    } else {
      marker.skipped(false);
      LOG.warn(
          "the agent died reading commands at position {} {} times, but there is no record there"
              + " to skip (it died idle, or the record was read already); reading goes on",
          poison,
          ReadingMarker.MAX_CRASHES);
    }
  }
}
