package dev.sebridge.sink.eventhubs;

import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventHubConsumerAsyncClient;
import com.azure.messaging.eventhubs.models.EventPosition;
import com.azure.messaging.eventhubs.models.PartitionEvent;
import com.azure.messaging.eventhubs.models.ReceiveOptions;
import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.ReceivedCommand;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * Reads this VM's approval commands from the commands hub: only the partition its vmId maps to
 * ({@link CommandPartitioning}, as {@code sebridge approve} sends), in one consumer group, as a
 * non-exclusive reader (no owner level, so a restarted agent never fights its previous self).
 * Events addressed to other VMs sharing the partition are skipped: a command carries its target in
 * the {@code cloudEvents_partitionkey} application property (or the partition key).
 *
 * <p>The position is the sequence number of the last command handed over; the core persists it once
 * the command's result is durable, and reading resumes after it. Without one, reading starts 11
 * minutes back, which covers every command still valid; the first event found there is held back
 * one poll and its sequence number told as the read position, so the agent records where it reads
 * before the read that hands it over (a death handling it is counted at it); a lookback that holds
 * nothing tells the position right after the hub's last event. A receive stream that fails (after
 * the client's own retry) is opened again by the next poll, after the last event seen.
 */
public final class EventHubsCommandSource implements CommandSource {
  private static final Logger LOG = LoggerFactory.getLogger(EventHubsCommandSource.class);
  static final Duration LOOKBACK = Duration.ofMinutes(11);
  static final String TARGET_PROPERTY = "cloudEvents_partitionkey";

  private final Supplier<EventHubConsumerAsyncClient> factory;
  private final String hub;
  private final String vmId;
  private final Clock clock;
  // The open stream's deliveries. Each stream has its own queue; one closed or failed leaves its
  // queue behind, so what it delivers late (on its way when it was disposed) is never read.
  private BlockingDeque<Object> received = new LinkedBlockingDeque<>();
  private final Lookback lookback;
  private EventHubConsumerAsyncClient client;
  private Disposable stream;
  private String partitionId;
  private Optional<String> startPosition = Optional.empty();
  private Long lastSeen;
  private boolean oneAtATime;
  private boolean open;
  private final PartitionEnd end;

  public EventHubsCommandSource(
      Supplier<EventHubConsumerAsyncClient> factory, String hub, String vmId, Clock clock) {
    this.factory = factory;
    this.hub = hub;
    this.vmId = vmId;
    this.clock = clock;
    this.end = new PartitionEnd(hub, clock);
    this.lookback = new Lookback(hub, clock);
  }

  @Override
  public String name() {
    return "eventhubs";
  }

  @Override
  public synchronized void readOneAtATime() {
    oneAtATime = true;
  }

  @Override
  public synchronized void open(Optional<String> position) {
    position.ifPresent(EventHubsCommandSource::parsePosition);
    this.startPosition = position;
    this.open = true;
  }

  static long parsePosition(String position) {
    try {
      return Long.parseLong(position.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "the stored Event Hubs command position is not a sequence number: " + position, e);
    }
  }

  /** Finds this VM's partition; returns how many the hub has. */
  private int ensurePartition() {
    if (client == null) {
      client = factory.get();
    }
    List<String> ids = client.getPartitionIds().collectList().block(Duration.ofSeconds(30));
    if (ids == null || ids.isEmpty()) {
      throw new IllegalStateException("commands hub " + hub + " has no partitions");
    }
    partitionId = ids.get(CommandPartitioning.partitionFor(vmId, ids.size()));
    return ids.size();
  }

  /** Opens the receive stream: the partition, and where to start. */
  private void subscribe() {
    int partitions = ensurePartition();
    EventPosition from;
    String described;
    if (lastSeen != null) {
      from = EventPosition.fromSequenceNumber(lastSeen, false);
      described = "after sequence number " + lastSeen;
    } else if (startPosition.isPresent()) {
      long seq = parsePosition(startPosition.get());
      from = EventPosition.fromSequenceNumber(seq, false);
      described = "after sequence number " + seq + " (the stored position)";
    } else {
      java.time.Instant since = lookback.start(LOOKBACK);
      from = EventPosition.fromEnqueuedTime(since);
      described = "at events enqueued since " + since;
    }
    BoundedReceiver receiver = new BoundedReceiver();
    received = receiver.queue;
    client.receiveFromPartition(partitionId, from, new ReceiveOptions()).subscribe(receiver);
    stream = receiver;
    LOG.info(
        "reading commands from hub {} (partition {} of {}) {}",
        hub,
        partitionId,
        partitions,
        described);
  }

  @Override
  public synchronized List<ReceivedCommand> poll(Duration timeout) {
    if (!open) {
      throw new IllegalStateException("not open");
    }
    if (stream == null) {
      subscribe();
    }
    List<Object> items = new ArrayList<>();
    try {
      Object first =
          received.pollFirst(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      if (first == null) {
        if (fromLookback()) {
          lookback.nothingFound(this::partitionProperties);
        }
        return List.of();
      }
      if (first instanceof PartitionEvent e
          && fromLookback()
          && lookback.holdBack(e.getData().getSequenceNumber())) {
        received.addFirst(first); // for the next poll: its position is told until then
        return List.of();
      }
      items.add(first);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
    if (!oneAtATime) {
      received.drainTo(items);
    }
    if (stream instanceof BoundedReceiver r) {
      r.request(items.size());
    }
    List<ReceivedCommand> out = new ArrayList<>();
    for (Object item : items) {
      if (item instanceof Throwable t) {
        // Terminal for this stream: the next poll opens a new one after the last event seen.
        stream.dispose();
        stream = null;
        received = new LinkedBlockingDeque<>(); // what the failed stream still delivers is not read
        lookback.forget(); // asked again on the next stream
        if (out.isEmpty()) {
          throw new IllegalStateException("reading commands from " + hub + " failed: " + t, t);
        }
        LOG.warn("reading commands from {} failed, reopening: {}", hub, t.toString());
        break;
      }
      EventData d = ((PartitionEvent) item).getData();
      lastSeen = d.getSequenceNumber();
      if (!addressedToThisVm(d)) {
        continue; // another VM's command in the same partition
      }
      out.add(
          new ReceivedCommand(
              d.getBody(),
              Long.toString(d.getSequenceNumber()),
              hub + "/" + partitionId + "@" + d.getSequenceNumber(),
              properties(d)));
    }
    return out;
  }

  /** Reading from the lookback: no event seen yet, and no stored position. */
  private boolean fromLookback() {
    return lastSeen == null && startPosition.isEmpty();
  }

  /**
   * Takes at most {@link #BUFFERED} events ahead of the pump (plus the client's prefetch): a flood
   * of large events cannot fill the heap while the pump is busy.
   */
  static final int BUFFERED = 64;

  private final class BoundedReceiver
      extends reactor.core.publisher.BaseSubscriber<PartitionEvent> {
    final BlockingDeque<Object> queue = new LinkedBlockingDeque<>();

    @Override
    protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
      request(oneAtATime ? 1 : BUFFERED); // one at a time: one event ahead (the prefetch aside)
    }

    @Override
    protected void hookOnNext(PartitionEvent event) {
      queue.add(event);
    }

    @Override
    protected void hookOnError(Throwable t) {
      queue.add(t);
    }

    @Override
    protected void hookOnComplete() {
      queue.add(new IllegalStateException("the receive stream ended"));
    }
  }

  /**
   * The event's application properties and content type (CloudEvents binary mode over AMQP: {@code
   * cloudEvents:*} or {@code cloudEvents_*}).
   */
  private static java.util.Map<String, String> properties(EventData d) {
    java.util.Map<String, String> h = new java.util.HashMap<>();
    d.getProperties()
        .forEach(
            (k, v) -> {
              if (v != null && h.size() < 64 && String.valueOf(v).length() <= 4096) {
                h.put(k.toLowerCase(java.util.Locale.ROOT), String.valueOf(v));
              }
            });
    if (d.getContentType() != null) {
      h.put("content-type", d.getContentType());
    }
    return h;
  }

  private boolean addressedToThisVm(EventData d) {
    Object target = d.getProperties().get(TARGET_PROPERTY);
    return (target instanceof String t && CommandPartitioning.sameVm(t, vmId))
        || CommandPartitioning.sameVm(d.getPartitionKey(), vmId);
  }

  /** How long {@link #atEnd} waits for the hub's answer; then it says it cannot tell. */
  static final Duration END_TIMEOUT = Duration.ofSeconds(10);

  /** How long after a question that failed {@link #atEnd} asks again at the same position. */
  static final Duration END_RETRY = Duration.ofMinutes(1);

  /**
   * Asks the hub for the partition's properties (a management request): at the end when the
   * partition is empty (every event expired) or its last enqueued event is before the read
   * position, so no event is left to read, in the client's prefetch or on the hub. Asked once per
   * read position (an error or no answer in {@link #END_TIMEOUT} is "cannot tell": false, logged,
   * and asked again at the same position only one to two {@link #END_RETRY} later); the agent asks
   * only after a read that found nothing and moved nothing, while its marker is not idle: about
   * once per burst of events on the partition, never in a loop.
   */
  @Override
  public synchronized boolean atEnd() {
    java.util.OptionalLong next = readPosition();
    if (!open || stream == null || partitionId == null || next.isEmpty() || !received.isEmpty()) {
      return false;
    }
    return end.atEnd(next.getAsLong(), this::partitionProperties);
  }

  /** The partition's properties, asked of the hub: null when it does not answer in time. */
  private com.azure.messaging.eventhubs.PartitionProperties partitionProperties() {
    return client.getPartitionProperties(partitionId).block(END_TIMEOUT);
  }

  @Override
  public synchronized java.util.OptionalLong readPosition() {
    if (lastSeen != null) {
      return java.util.OptionalLong.of(lastSeen + 1);
    }
    if (startPosition.isPresent()) {
      return java.util.OptionalLong.of(parsePosition(startPosition.get()) + 1);
    }
    return lookback.position(
        received.peekFirst() instanceof PartitionEvent e
            ? java.util.OptionalLong.of(e.getData().getSequenceNumber())
            : java.util.OptionalLong.empty());
  }

  @Override
  public synchronized Optional<Skipped> skipAt(long position) {
    java.util.OptionalLong from = readPosition();
    if (from.isPresent() && position < from.getAsLong()) {
      return Optional.empty(); // before where this source reads: read already, nothing to skip
    }
    ensurePartition();
    long last =
        client
            .getPartitionProperties(partitionId)
            .block(Duration.ofSeconds(30))
            .getLastEnqueuedSequenceNumber();
    if (position > last) {
      return Optional.empty(); // no event there (yet): nothing to skip
    }
    lastSeen = position; // the next stream starts after it
    return Optional.of(
        new Skipped(hub + "/" + partitionId + "@" + position, Long.toString(position)));
  }

  /** The current stream's subscriber, null when none is open (for tests). */
  synchronized org.reactivestreams.Subscriber<PartitionEvent> receiving() {
    return stream instanceof BoundedReceiver r ? r : null;
  }

  @Override
  public synchronized void close() {
    open = false;
    received = new LinkedBlockingDeque<>(); // nothing of this stream is read after a reopen
    end.forget(); // asked again after a reopen
    lookback.forget();
    if (stream != null) {
      stream.dispose();
      stream = null;
    }
    if (client != null) {
      client.close();
      client = null;
    }
  }
}
