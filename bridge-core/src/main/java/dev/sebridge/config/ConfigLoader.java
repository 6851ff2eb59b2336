package dev.sebridge.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;

/**
 * Reads configuration from a YAML or properties file, {@code SEBRIDGE_*} environment variables and
 * {@code --set key=value} arguments, in that order of increasing precedence, and rejects unknown
 * keys. Values are validated later against the key definitions.
 */
public final class ConfigLoader {
  private final KeyCatalog catalog;

  public ConfigLoader(KeyCatalog catalog) {
    this.catalog = catalog;
  }

  /** A configuration and every problem found reading and checking it. */
  public record Result(Configuration config, List<ConfigProblem> problems) {
    public Result {
      problems = List.copyOf(problems);
    }

    /** The configuration, or a {@link ConfigException} listing every problem. */
    public Configuration orThrow() {
      if (!problems.isEmpty()) {
        throw new ConfigException(problems);
      }
      return config;
    }
  }

  /**
   * Merges the sources and checks them: unreadable file, syntax, malformed {@code --set}, unknown
   * keys, and invalid values of every key set. Required keys are the callers' to check, as they
   * depend on what is enabled.
   */
  public Result read(Path file, Map<String, String> env, List<String> sets) {
    Map<String, String> raw = new LinkedHashMap<>();
    List<ConfigProblem> problems = new ArrayList<>();
    if (file != null) {
      readFile(file, raw, problems);
    }
    env.forEach((name, value) -> catalog.keyForEnv(name).ifPresent(key -> raw.put(key, value)));
    for (String set : sets) {
      int eq = set.indexOf('=');
      if (eq <= 0) {
        problems.add(new ConfigProblem(set, "--set takes key=value"));
        continue;
      }
      raw.put(set.substring(0, eq).trim(), set.substring(eq + 1).trim());
    }
    Configuration config = new Configuration(raw);
    problems.addAll(config.unknownKeys(catalog));
    problems.addAll(config.problems(catalog.keys(), false));
    return new Result(config, problems);
  }

  /** {@link #read} that throws {@link ConfigException} when there is any problem. */
  public Configuration load(Path file, Map<String, String> env, List<String> sets) {
    return read(file, env, sets).orThrow();
  }

  private static void readFile(Path file, Map<String, String> raw, List<ConfigProblem> problems) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (!Files.isReadable(file)) {
      problems.add(new ConfigProblem("--config", "cannot read " + file));
      return;
    }
    try {
      if (name.endsWith(".properties")) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
          p.load(r);
        }
        p.stringPropertyNames().forEach(k -> raw.put(k, p.getProperty(k).trim()));
      } else {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        if (root == null || root.isMissingNode() || root.isNull()) {
          return;
        }
        if (!root.isObject()) {
          problems.add(new ConfigProblem("--config", file + " must hold a map of keys"));
          return;
        }
        flatten("", root, raw);
      }
    } catch (JacksonException e) {
      problems.add(
          new ConfigProblem("--config", file + " is not valid YAML: " + e.getOriginalMessage()));
    } catch (IOException e) {
      problems.add(new ConfigProblem("--config", "cannot read " + file + ": " + e.getMessage()));
    } catch (IllegalArgumentException e) {
      // Properties.load on a malformed unicode escape (found by fuzzing).
      problems.add(
          new ConfigProblem(
              "--config", file + " is not a valid properties file: " + e.getMessage()));
    }
  }

  /** {@code imds: {poll-interval: 1s}} becomes {@code imds.poll-interval=1s}; lists are joined. */
  private static void flatten(String prefix, JsonNode node, Map<String, String> out) {
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), out);
      }
    } else if (node.isArray()) {
      StringJoiner j = new StringJoiner(",");
      node.forEach(n -> j.add(n.asText()));
      out.put(prefix, j.toString());
    } else if (!node.isNull()) {
      out.put(prefix, node.asText());
    }
  }
}
