package dev.sebridge.config;

import java.util.List;
import java.util.stream.Collectors;

/** The configuration is not usable; every problem found is listed. The CLI exits 2 on it. */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient List<ConfigProblem> problems;

  public ConfigException(List<ConfigProblem> problems) {
    super(
        "invalid configuration:\n"
            + problems.stream().map(p -> "  " + p).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  public ConfigException(String key, String message) {
    this(List.of(new ConfigProblem(key, message)));
  }

  public List<ConfigProblem> problems() {
    return problems;
  }
}
