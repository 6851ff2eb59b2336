package dev.sebridge.command;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.spi.CommandSourceProvider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/** The command sources on the class path. */
public final class CommandSourceCatalog {
  private static final Map<String, String> MODULES =
      Map.of("kafka", "sink-kafka", "eventhubs", "sink-eventhubs");
  private final Map<String, CommandSourceProvider> providers = new LinkedHashMap<>();

  public CommandSourceCatalog(List<CommandSourceProvider> list) {
    for (CommandSourceProvider p : list) {
      if (providers.putIfAbsent(p.name(), p) != null) {
        throw new IllegalStateException("two command sources are named " + p.name());
      }
    }
  }

  public static CommandSourceCatalog discover() {
    List<CommandSourceProvider> found = new ArrayList<>();
    ServiceLoader.load(CommandSourceProvider.class).forEach(found::add);
    return new CommandSourceCatalog(found);
  }

  public List<ConfigKey<?>> configKeys() {
    List<ConfigKey<?>> keys = new ArrayList<>();
    providers.values().forEach(p -> keys.addAll(p.configKeys()));
    return keys;
  }

  /** The selected provider, if {@code commands.source} is not {@code none}. */
  public Optional<CommandSourceProvider> selected(Configuration config) {
    String name = config.get(CoreKeys.COMMANDS_SOURCE);
    return name.equals("none") ? Optional.empty() : Optional.ofNullable(providers.get(name));
  }

  public List<ConfigProblem> problems(Configuration config) {
    List<ConfigProblem> problems = new ArrayList<>();
    String name;
    try {
      name = config.get(CoreKeys.COMMANDS_SOURCE);
    } catch (dev.sebridge.config.ConfigException e) {
      return e.problems();
    }
    if (name.equals("none")) {
      return problems;
    }
    CommandSourceProvider p = providers.get(name);
    if (p == null) {
      String module = MODULES.get(name);
      problems.add(
          new ConfigProblem(
              CoreKeys.COMMANDS_SOURCE.name(),
              module == null
                  ? "unknown command source '"
                      + name
                      + "' (available: none, "
                      + String.join(", ", providers.keySet())
                      + ")"
                  : "command source '"
                      + name
                      + "' needs the "
                      + module
                      + " module on the class path"));
      return problems;
    }
    List<ConfigProblem> own = config.problems(p.configKeys(), true);
    problems.addAll(own);
    if (own.isEmpty()) {
      problems.addAll(p.validate(config));
    }
    if (!config.isSet(CoreKeys.COMMANDS_TRUSTED_KEYS)) {
      problems.add(
          new ConfigProblem(
              CoreKeys.COMMANDS_TRUSTED_KEYS.name(),
              "is required when commands.source is " + name + " (no key, no approval)"));
    }
    return problems;
  }
}
