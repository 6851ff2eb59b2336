package dev.sebridge.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A resolved, immutable configuration: raw values by key after merging the file, the environment
 * and {@code --set}, read through {@link ConfigKey} definitions.
 */
public final class Configuration {
  private final Map<String, String> raw;

  public Configuration(Map<String, String> raw) {
    this.raw = Map.copyOf(raw);
  }

  public static Configuration of(Map<String, String> raw) {
    return new Configuration(raw);
  }

  /** The value, or the default; a missing required key or a bad value throws naming the key. */
  public <T> T get(ConfigKey<T> key) {
    return find(key)
        .or(key::defaultValue)
        .orElseThrow(() -> new ConfigException(key.name(), "is required"));
  }

  /** The value explicitly set, if any (validated). */
  public <T> Optional<T> find(ConfigKey<T> key) {
    String v = raw.get(key.name());
    if (v == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(key.parse(v));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(key.name(), e.getMessage());
    }
  }

  public boolean isSet(ConfigKey<?> key) {
    return raw.containsKey(key.name());
  }

  /** Every key under a pass-through prefix, with the prefix removed. */
  public Map<String, String> passthrough(ConfigKey<?> prefixKey) {
    String prefix = prefixKey.prefix();
    Map<String, String> out = new TreeMap<>();
    raw.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    return out;
  }

  /** A copy with some values replaced (for tests and the demo). */
  public Configuration with(Map<String, String> overrides) {
    Map<String, String> m = new LinkedHashMap<>(raw);
    m.putAll(overrides);
    return new Configuration(m);
  }

  /** Raw values, secrets masked: safe to print. */
  public Map<String, String> describe(KeyCatalog catalog) {
    Map<String, String> out = new TreeMap<>();
    raw.forEach(
        (k, v) -> {
          boolean secret = catalog.lookup(k).map(ConfigKey::secret).orElse(false) || looksSecret(k);
          out.put(k, secret ? "********" : v);
        });
    return out;
  }

  /** Pass-through keys of native clients do not declare secrecy; mask the usual suspects. */
  static boolean looksSecret(String key) {
    String k = key.toLowerCase(java.util.Locale.ROOT);
    return k.contains("password")
        || k.contains("secret")
        || k.contains("jaas")
        || k.contains("connection-string")
        || k.contains("token")
        || k.endsWith(".key");
  }

  /**
   * Every problem with these keys: unparsable or invalid values, and (if asked) required keys that
   * are missing.
   */
  public List<ConfigProblem> problems(
      Collection<? extends ConfigKey<?>> keys, boolean checkRequired) {
    List<ConfigProblem> problems = new ArrayList<>();
    for (ConfigKey<?> key : keys) {
      if (key.isPrefix()) {
        continue;
      }
      String v = raw.get(key.name());
      if (v == null) {
        if (checkRequired && key.required() && key.defaultValue().isEmpty()) {
          problems.add(new ConfigProblem(key.name(), "is required"));
        }
        continue;
      }
      try {
        key.parse(v);
      } catch (IllegalArgumentException e) {
        problems.add(new ConfigProblem(key.name(), e.getMessage()));
      }
    }
    return problems;
  }

  /** Keys set that no definition covers (typos, or a plugin module missing). */
  public List<ConfigProblem> unknownKeys(KeyCatalog catalog) {
    List<ConfigProblem> problems = new ArrayList<>();
    for (String k : new TreeMap<>(raw).keySet()) {
      if (catalog.lookup(k).isEmpty()) {
        problems.add(new ConfigProblem(k, "is not a known configuration key"));
      }
    }
    return problems;
  }
}
