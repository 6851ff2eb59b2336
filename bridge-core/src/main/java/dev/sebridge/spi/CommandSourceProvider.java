package dev.sebridge.spi;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.Configuration;
import java.util.List;

/**
 * Creates a command source; found with {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.sebridge.spi.CommandSourceProvider}).
 */
public interface CommandSourceProvider {

  /** The name used in {@code commands.source}. */
  String name();

  /** The source's configuration keys; required ones are checked when it is selected. */
  List<ConfigKey<?>> configKeys();

  /** Problems spanning several keys. */
  default List<ConfigProblem> validate(Configuration config) {
    return List.of();
  }

  /** What {@code check-config} should tell an operator about this source's setup (not problems). */
  default List<String> advice(Configuration config) {
    return List.of();
  }

  /**
   * Creates the source for one VM: it reads only what is addressed to {@code vmId} (its partition).
   */
  CommandSource create(Configuration config, String vmId);
}
