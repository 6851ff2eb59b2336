package dev.sebridge.sink.eventhubs.testing;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.message.Message;

/** Encoding helpers around proton-j's codec. */
final class Amqp {
  /** The message format of a batch: an envelope whose data sections are whole messages. */
  static final long BATCH_FORMAT = 0x80013700L;

  private Amqp() {}

  static byte[] encode(Message m) {
    // proton-j's size estimate is not exact for every type (arrays in maps), so grow on overflow.
    for (int size = 4096; ; size *= 2) {
      byte[] buffer = new byte[size];
      try {
        int n = m.encode(buffer, 0, size);
        return Arrays.copyOf(buffer, n);
      } catch (BufferOverflowException e) {
        // try a bigger buffer
      }
    }
  }

  /**
   * The messages of a batch and the partition key of its envelope.
   *
   * @param inner each data section's bytes: one encoded message each
   */
  record Batch(List<byte[]> inner, String partitionKey) {}

  static Batch splitBatch(byte[] bytes) {
    DecoderImpl decoder = new DecoderImpl();
    EncoderImpl encoder = new EncoderImpl(decoder);
    AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    decoder.setByteBuffer(buffer);
    List<byte[]> inner = new ArrayList<>();
    String key = null;
    while (buffer.hasRemaining()) {
      Object section = decoder.readObject();
      if (section instanceof MessageAnnotations a && a.getValue() != null) {
        Object k = a.getValue().get(StoredEvent.PARTITION_KEY);
        key = k == null ? null : k.toString();
      } else if (section instanceof Data d) {
        Binary b = d.getValue();
        byte[] m = new byte[b.getLength()];
        System.arraycopy(b.getArray(), b.getArrayOffset(), m, 0, b.getLength());
        inner.add(m);
      }
    }
    return new Batch(inner, key);
  }

  static String partitionKey(Message m) {
    if (m.getMessageAnnotations() == null || m.getMessageAnnotations().getValue() == null) {
      return null;
    }
    Object k = m.getMessageAnnotations().getValue().get(Symbol.valueOf("x-opt-partition-key"));
    return k == null ? null : k.toString();
  }
}
