package dev.sebridge.spi;

/**
 * A command as read from a command source: raw bytes, trusted for nothing.
 *
 * @param payload the record's value, as received
 * @param position where to resume after this command (e.g. the next Kafka offset), opaque to the
 *     core; persisted once the command's result envelope is durable
 * @param origin human-readable location for logs, e.g. {@code commands/3@1042}
 */
public record ReceivedCommand(byte[] payload, String position, String origin) {}
