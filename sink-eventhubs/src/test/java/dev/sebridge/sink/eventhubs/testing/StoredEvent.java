package dev.sebridge.sink.eventhubs.testing;

import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.message.Message;

/**
 * An event as the peer stored it.
 *
 * @param partitionId its partition
 * @param sequenceNumber its sequence number in the partition
 * @param offset its offset (a byte position, as a string like the service's)
 * @param enqueuedTime when the peer stored it
 * @param partitionKey the partition key it was sent with, or null
 * @param encoded the AMQP message exactly as the client encoded it
 */
public record StoredEvent(
    String partitionId,
    long sequenceNumber,
    String offset,
    Instant enqueuedTime,
    String partitionKey,
    byte[] encoded) {

  static final Symbol SEQUENCE_NUMBER = Symbol.valueOf("x-opt-sequence-number");
  static final Symbol OFFSET = Symbol.valueOf("x-opt-offset");
  static final Symbol ENQUEUED_TIME = Symbol.valueOf("x-opt-enqueued-time");
  static final Symbol PARTITION_KEY = Symbol.valueOf("x-opt-partition-key");

  /** The message as sent. */
  public Message message() {
    Message m = Proton.message();
    m.decode(encoded, 0, encoded.length);
    return m;
  }

  /** The body: the one data section's bytes. */
  public byte[] body() {
    if (message().getBody() instanceof Data d) {
      Binary b = d.getValue();
      byte[] out = new byte[b.getLength()];
      System.arraycopy(b.getArray(), b.getArrayOffset(), out, 0, b.getLength());
      return out;
    }
    throw new IllegalStateException("body is not a data section: " + message().getBody());
  }

  public String contentType() {
    return message().getContentType();
  }

  /** Application properties (string keys). */
  public Map<String, Object> properties() {
    ApplicationProperties p = message().getApplicationProperties();
    return p == null || p.getValue() == null ? Map.of() : p.getValue();
  }

  /** The message as delivered to a consumer: with the service's annotations. */
  byte[] delivery() {
    Message m = message();
    Map<Symbol, Object> annotations = new HashMap<>();
    if (m.getMessageAnnotations() != null && m.getMessageAnnotations().getValue() != null) {
      annotations.putAll(m.getMessageAnnotations().getValue());
    }
    annotations.put(SEQUENCE_NUMBER, sequenceNumber);
    annotations.put(OFFSET, offset);
    annotations.put(ENQUEUED_TIME, Date.from(enqueuedTime));
    if (partitionKey != null) {
      annotations.put(PARTITION_KEY, partitionKey);
    }
    m.setMessageAnnotations(new MessageAnnotations(annotations));
    return Amqp.encode(m);
  }
}
