package dev.sebridge.spi;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.Configuration;
import java.util.List;

/**
 * Creates a sink; found with {@link java.util.ServiceLoader} (register the implementation in {@code
 * META-INF/services/dev.sebridge.spi.EventSinkProvider}). The core never depends on a sink module.
 */
public interface EventSinkProvider {

  /** The name used in the {@code sinks} key. */
  String name();

  /**
   * The configuration keys of this sink (conventionally {@code sink.<name>.*}). Required keys are
   * checked when the sink is selected.
   */
  List<ConfigKey<?>> configKeys();

  /**
   * Problems that span several keys (conflicting settings), beyond each key's own validation.
   * Called by {@code check-config} and at start when the sink is selected.
   */
  default List<ConfigProblem> validate(Configuration config) {
    return List.of();
  }

  /**
   * Creates the sink. Throws {@link dev.sebridge.config.ConfigException} naming the key when the
   * configuration cannot work (checked again at start, so validation may be shallow here).
   */
  EventSink create(SinkContext context);
}
