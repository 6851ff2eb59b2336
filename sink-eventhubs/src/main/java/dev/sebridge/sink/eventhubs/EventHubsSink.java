package dev.sebridge.sink.eventhubs;

import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventDataBatch;
import com.azure.messaging.eventhubs.EventHubProducerClient;
import com.azure.messaging.eventhubs.models.CreateBatchOptions;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes envelopes to an event hub with the real {@code azure-messaging-eventhubs} producer:
 * partition key = vmId (one VM's envelopes stay in order in one partition), body = the structured
 * CloudEvents JSON, content type {@code application/cloudevents+json; charset=utf-8}, message id =
 * envelope id, and the {@code cloudEvents_*} application properties as hints. Batches are built
 * with the client's batch API, so the hub's maximum message size (from the link) is respected.
 *
 * <p>An export completes once the service accepted every batch. I/O only: the client retries an
 * operation once, the outbox does the rest. A client left broken by a non-transient error is closed
 * and replaced before the next export.
 */
public final class EventHubsSink implements EventSink {
  private static final Logger LOG = LoggerFactory.getLogger(EventHubsSink.class);
  private static final Set<AmqpErrorCondition> REFUSALS =
      Set.of(
          AmqpErrorCondition.UNAUTHORIZED_ACCESS,
          AmqpErrorCondition.NOT_FOUND,
          AmqpErrorCondition.NOT_ALLOWED,
          AmqpErrorCondition.LINK_PAYLOAD_SIZE_EXCEEDED,
          AmqpErrorCondition.ARGUMENT_ERROR,
          AmqpErrorCondition.ARGUMENT_OUT_OF_RANGE_ERROR,
          AmqpErrorCondition.ENTITY_DISABLED_ERROR);

  private final Supplier<EventHubProducerClient> factory;
  private final ExecutorService io;
  private EventHubProducerClient client; // used on the io thread only
  private volatile boolean shutdown;

  public EventHubsSink(Supplier<EventHubProducerClient> factory) {
    this.factory = factory;
    this.io =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "sebridge-eventhubs-sink");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public String name() {
    return "eventhubs";
  }

  /** The event for an envelope: the body as is, and the CloudEvents AMQP binding's hints. */
  static EventData eventData(Envelope e) {
    EventData d = new EventData(e.body());
    d.setContentType(Envelope.CONTENT_TYPE);
    d.setMessageId(e.id());
    Map<String, Object> p = d.getProperties();
    p.put("cloudEvents_specversion", "1.0");
    p.put("cloudEvents_type", e.type());
    p.put("cloudEvents_id", e.id());
    p.put("cloudEvents_source", e.source());
    if (e.subject() != null) {
      p.put("cloudEvents_subject", e.subject());
    }
    return d;
  }

  @Override
  public CompletableFuture<Void> export(List<Envelope> batch) {
    if (shutdown) {
      return CompletableFuture.failedFuture(new SinkException("eventhubs sink is shut down"));
    }
    if (batch.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<Envelope> copy = List.copyOf(batch);
    return CompletableFuture.runAsync(() -> send(copy), io);
  }

  private void send(List<Envelope> batch) {
    Map<String, List<Envelope>> byKey = new LinkedHashMap<>();
    for (Envelope e : batch) {
      byKey.computeIfAbsent(e.partitionKey(), k -> new ArrayList<>()).add(e);
    }
    try {
      EventHubProducerClient c = client();
      for (Map.Entry<String, List<Envelope>> group : byKey.entrySet()) {
        CreateBatchOptions options = new CreateBatchOptions().setPartitionKey(group.getKey());
        EventDataBatch b = c.createBatch(options);
        for (Envelope e : group.getValue()) {
          if (b.tryAdd(eventData(e))) {
            continue;
          }
          if (b.getCount() == 0) {
            throw tooLarge(e, b);
          }
          c.send(b);
          b = c.createBatch(options);
          if (!b.tryAdd(eventData(e))) {
            throw tooLarge(e, b);
          }
        }
        if (b.getCount() > 0) {
          c.send(b);
        }
      }
    } catch (SinkException e) {
      throw new CompletionException(e);
    } catch (RuntimeException e) {
      SinkException s = classify(e);
      if (!(s instanceof RetriableSinkException) || !(e instanceof AmqpException)) {
        discardClient();
      }
      throw new CompletionException(s);
    }
  }

  private static SinkException tooLarge(Envelope e, EventDataBatch b) {
    return new SinkException(
        "envelope "
            + e.id()
            + " ("
            + e.size()
            + " bytes) does not fit the hub's maximum message size of "
            + b.getMaxSizeInBytes()
            + " bytes");
  }

  static SinkException classify(Throwable ex) {
    Throwable e = ex;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof SinkException s) {
      return s;
    }
    if (e instanceof AmqpException a) {
      if (!a.isTransient() && REFUSALS.contains(a.getErrorCondition())) {
        return new SinkException("Event Hubs refused the events: " + a.getMessage(), a);
      }
      return new RetriableSinkException("Event Hubs: " + a.getMessage(), a);
    }
    // A closed or broken client (IllegalStateException, a timeout...) heals with a new one.
    return new RetriableSinkException("Event Hubs producer failed: " + e, e);
  }

  private EventHubProducerClient client() {
    if (client == null) {
      client = factory.get();
    }
    return client;
  }

  private void discardClient() {
    if (client != null) {
      LOG.info("replacing the Event Hubs producer after an error");
      EventHubProducerClient old = client;
      client = null;
      try {
        old.close();
      } catch (RuntimeException e) {
        LOG.debug("closing the old producer failed", e);
      }
    }
  }

  @Override
  public CompletableFuture<Void> flush() {
    // Every export waits for the service's acknowledgement: nothing is buffered here.
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized CompletableFuture<Void> shutdown() {
    if (shutdown) {
      return CompletableFuture.completedFuture(null);
    }
    shutdown = true;
    CompletableFuture<Void> done =
        CompletableFuture.runAsync(
            () -> {
              if (client != null) {
                client.close();
                client = null;
              }
            },
            io);
    io.shutdown();
    return done;
  }
}
