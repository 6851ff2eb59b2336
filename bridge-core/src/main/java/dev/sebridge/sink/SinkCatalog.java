package dev.sebridge.sink;

import dev.sebridge.config.ConfigException;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** The sinks available on the class path, found with {@link ServiceLoader}. */
public final class SinkCatalog {
  /** Which module brings which sink, for the error message when one is missing. */
  private static final Map<String, String> MODULES =
      Map.of(
          "kafka", "sink-kafka",
          "eventhubs", "sink-eventhubs",
          "loganalytics", "sink-loganalytics");

  private final Map<String, EventSinkProvider> providers;

  public SinkCatalog(List<EventSinkProvider> providers) {
    Map<String, EventSinkProvider> m = new LinkedHashMap<>();
    for (EventSinkProvider p : providers) {
      if (m.putIfAbsent(p.name(), p) != null) {
        throw new IllegalStateException("two sinks are named " + p.name());
      }
    }
    this.providers = m;
  }

  public static SinkCatalog discover() {
    List<EventSinkProvider> found = new ArrayList<>();
    ServiceLoader.load(EventSinkProvider.class).forEach(found::add);
    return new SinkCatalog(found);
  }

  public List<String> names() {
    return List.copyOf(providers.keySet());
  }

  /** Every key of every available sink. */
  public List<ConfigKey<?>> configKeys() {
    List<ConfigKey<?>> keys = new ArrayList<>();
    providers.values().forEach(p -> keys.addAll(p.configKeys()));
    return keys;
  }

  /** Problems with the selected sinks: unknown names, and their keys. */
  public List<ConfigProblem> problems(Configuration config) {
    List<ConfigProblem> problems = new ArrayList<>();
    List<String> selected;
    try {
      selected = config.get(CoreKeys.SINKS);
    } catch (ConfigException e) {
      return e.problems();
    }
    for (String name : selected) {
      EventSinkProvider p = providers.get(name);
      if (p == null) {
        problems.add(new ConfigProblem(CoreKeys.SINKS.name(), unknown(name)));
      } else {
        List<ConfigProblem> own = config.problems(p.configKeys(), true);
        problems.addAll(own);
        if (own.isEmpty()) {
          problems.addAll(p.validate(config));
        }
      }
    }
    return problems;
  }

  private String unknown(String name) {
    String module = MODULES.get(name);
    return module == null
        ? "unknown sink '" + name + "' (available: " + String.join(", ", providers.keySet()) + ")"
        : "sink '"
            + name
            + "' needs the "
            + module
            + " module on the class path (available: "
            + String.join(", ", providers.keySet())
            + ")";
  }

  /** Creates the selected sinks, in configuration order. */
  public List<EventSink> create(SinkContext context) {
    List<ConfigProblem> problems = problems(context.config());
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    List<EventSink> sinks = new ArrayList<>();
    for (String name : context.config().get(CoreKeys.SINKS)) {
      sinks.add(providers.get(name).create(context));
    }
    return sinks;
  }
}
