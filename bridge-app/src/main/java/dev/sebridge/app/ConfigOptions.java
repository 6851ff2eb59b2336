package dev.sebridge.app;

import dev.sebridge.command.CommandSourceCatalog;
import dev.sebridge.config.ConfigException;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigLoader;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.config.KeyCatalog;
import dev.sebridge.sink.SinkCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --config FILE} and {@code --set key=value}, shared by the commands that read config. */
final class ConfigOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Configuration file (YAML, or .properties).")
  Path file;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = "Sets a key; wins over the file and SEBRIDGE_* environment variables.")
  List<String> sets = new ArrayList<>();

  static KeyCatalog catalog(SinkCatalog sinks) {
    List<ConfigKey<?>> keys = new ArrayList<>(CoreKeys.all());
    keys.addAll(sinks.configKeys());
    keys.addAll(CommandSourceCatalog.discover().configKeys());
    return new KeyCatalog(keys);
  }

  /** Loads and validates everything; throws {@link ConfigException} listing every problem. */
  Configuration load(Map<String, String> env) {
    SinkCatalog sinks = SinkCatalog.discover();
    KeyCatalog catalog = catalog(sinks);
    ConfigLoader.Result read = new ConfigLoader(catalog).read(file, env, sets);
    List<ConfigProblem> problems = new ArrayList<>(read.problems());
    boolean sinksValueOk = problems.stream().noneMatch(p -> p.key().equals(CoreKeys.SINKS.name()));
    if (sinksValueOk) {
      problems.addAll(sinks.problems(read.config()));
    }
    problems.addAll(CommandSourceCatalog.discover().problems(read.config()));
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    Configuration config = read.config();
    return config;
  }
}
