package dev.sebridge.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Every configuration key the running agent knows: the core's and those of discovered plugins. */
public final class KeyCatalog {
  private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();

  public KeyCatalog(Collection<? extends ConfigKey<?>> keys) {
    for (ConfigKey<?> k : keys) {
      ConfigKey<?> previous = this.keys.putIfAbsent(k.name(), k);
      if (previous != null && previous != k) {
        throw new IllegalStateException("configuration key defined twice: " + k.name());
      }
    }
  }

  public List<ConfigKey<?>> keys() {
    return List.copyOf(keys.values());
  }

  /** The key definition covering this name: itself, or a pass-through prefix above it. */
  public Optional<ConfigKey<?>> lookup(String name) {
    ConfigKey<?> exact = keys.get(name);
    if (exact != null && !exact.isPrefix()) {
      return Optional.of(exact);
    }
    return keys.values().stream()
        .filter(
            k -> k.isPrefix() && name.startsWith(k.prefix()) && name.length() > k.prefix().length())
        .findFirst()
        .map(k -> (ConfigKey<?>) k);
  }

  /**
   * Maps an environment variable ({@code SEBRIDGE_IMDS_POLL_INTERVAL}) to its key ({@code
   * imds.poll-interval}): the key whose name, upper-cased with dots and dashes as underscores, is
   * the variable without its prefix. Below a pass-through prefix the rest maps underscores to dots
   * ({@code SEBRIDGE_SINK_KAFKA_PRODUCER_SASL_MECHANISM} to {@code
   * sink.kafka.producer.sasl.mechanism}).
   */
  public Optional<String> keyForEnv(String variable) {
    if (!variable.startsWith("SEBRIDGE_")) {
      return Optional.empty();
    }
    String rest = variable.substring("SEBRIDGE_".length());
    for (ConfigKey<?> k : keys.values()) {
      if (!k.isPrefix() && envName(k.name()).equals(rest)) {
        return Optional.of(k.name());
      }
    }
    List<ConfigKey<?>> prefixes = new ArrayList<>();
    for (ConfigKey<?> k : keys.values()) {
      if (k.isPrefix() && rest.startsWith(envName(k.prefix()))) {
        prefixes.add(k);
      }
    }
    return prefixes.stream()
        .findFirst()
        .map(
            k ->
                k.prefix()
                    + rest.substring(envName(k.prefix()).length())
                        .toLowerCase(Locale.ROOT)
                        .replace('_', '.'));
  }

  static String envName(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }
}
