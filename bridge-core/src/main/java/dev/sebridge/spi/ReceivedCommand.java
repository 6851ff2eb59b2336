package dev.sebridge.spi;

/**
 * A command as read from a command source: raw bytes, trusted for nothing.
 *
 * @param payload the record's value, as received
 * @param position where to resume after this command (e.g. the next Kafka offset), opaque to the
 *     core; persisted once the command's result envelope is durable
 * @param origin human-readable location for logs, e.g. {@code commands/3@1042}
 * @param headers the record's headers or properties, names in lower case (CloudEvents binary mode
 *     carries the attributes there); untrusted like the payload
 */
public record ReceivedCommand(
    byte[] payload, String position, String origin, java.util.Map<String, String> headers) {
  public ReceivedCommand {
    headers = headers == null ? java.util.Map.of() : java.util.Map.copyOf(headers);
  }

  /** A command without headers (structured mode). */
  public ReceivedCommand(byte[] payload, String position, String origin) {
    this(payload, position, origin, java.util.Map.of());
  }
}
