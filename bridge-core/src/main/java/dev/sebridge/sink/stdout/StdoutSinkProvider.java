package dev.sebridge.sink.stdout;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.util.List;

/** The {@code stdout} sink (the default). */
public final class StdoutSinkProvider implements EventSinkProvider {
  @Override
  public String name() {
    return "stdout";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of();
  }

  @Override
  public EventSink create(SinkContext context) {
    return new StdoutSink(System.out);
  }
}
