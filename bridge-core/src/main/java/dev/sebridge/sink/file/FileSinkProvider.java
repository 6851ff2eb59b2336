package dev.sebridge.sink.file;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigType;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The {@code file} sink. */
public final class FileSinkProvider implements EventSinkProvider {
  public static final ConfigKey<Path> PATH =
      ConfigKey.builder("sink.file.path", ConfigType.PATH)
          .required()
          .doc("File sink: the JSON Lines file envelopes are appended to (fsynced per batch).")
          .build();

  public static final ConfigKey<Long> MAX_BYTES =
      ConfigKey.builder("sink.file.max-bytes", ConfigType.SIZE)
          .defaultValue(FileSink.MAX_BYTES)
          .doc(
              "File sink: the size past which the file is rotated before the next batch (the file"
                  + " events.jsonl becomes events.jsonl.1, events.jsonl.1 events.jsonl.2, and so on). Rotated outside"
                  + " (logrotate), use copytruncate, which can lose to the copy a batch written between"
                  + " its copy and its truncation: the sink keeps writing to the file it opened.")
          .validator(n -> n < 64 * 1024 ? Optional.of("must be at least 64KiB") : Optional.empty())
          .build();

  public static final ConfigKey<Integer> KEEP =
      ConfigKey.builder("sink.file.keep", ConfigType.INT)
          .defaultValue(FileSink.KEEP)
          .doc(
              "File sink: how many rotated files are kept (.1 the newest); the oldest beyond"
                  + " is deleted. 0 keeps none.")
          .validator(n -> n < 0 || n > 100 ? Optional.of("must be 0 to 100") : Optional.empty())
          .build();

  @Override
  public String name() {
    return "file";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of(PATH, MAX_BYTES, KEEP);
  }

  @Override
  public EventSink create(SinkContext context) {
    return new FileSink(
        context.config().get(PATH), context.config().get(MAX_BYTES), context.config().get(KEEP));
  }
}
