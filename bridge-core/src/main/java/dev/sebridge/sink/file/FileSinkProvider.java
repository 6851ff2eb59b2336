package dev.sebridge.sink.file;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigType;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.nio.file.Path;
import java.util.List;

/** The {@code file} sink. */
public final class FileSinkProvider implements EventSinkProvider {
  public static final ConfigKey<Path> PATH =
      ConfigKey.builder("sink.file.path", ConfigType.PATH)
          .required()
          .doc("File sink: the JSON Lines file envelopes are appended to (fsynced per batch).")
          .build();

  @Override
  public String name() {
    return "file";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of(PATH);
  }

  @Override
  public EventSink create(SinkContext context) {
    return new FileSink(context.config().get(PATH));
  }
}
