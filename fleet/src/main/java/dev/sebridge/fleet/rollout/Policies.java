package dev.sebridge.fleet.rollout;

import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.fleet.model.EventView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The central policies: a version and named rules, read from the configuration under {@code
 * fleet.policies} (docs/fleet.md):
 *
 * <pre>
 * fleet:
 *   policies:
 *     version: 3
 *     rules:
 *       10-user-initiated: {match: {source: User}, action: approve}
 *       20-short-freeze:   {match: {type: Freeze, duration-under: 9s}, action: approve}
 *       30-web-reboots:
 *         match: {type: [Reboot, Redeploy], scale-set: web}
 *         action: rollout
 *         rollout: {max-unavailable: 10%, group-by: zone, settle: 2m, timeout: 20m}
 *       90-never-terminate: {match: {type: [Terminate, Preempt]}, action: never, dry-run: false}
 * </pre>
 *
 * @param version the policies' version: in every decision and every command's reason
 * @param rules in name order
 */
public record Policies(int version, List<PolicyRule> rules) {
  public static final String KEY = "fleet.policies";
  private static final Set<String> FIELDS =
      Set.of(
          "match.type",
          "match.source",
          "match.scale-set",
          "match.duration-under",
          "action",
          "dry-run",
          "rollout.max-unavailable",
          "rollout.group-by",
          "rollout.settle",
          "rollout.timeout");

  public Policies {
    rules = List.copyOf(rules);
  }

  public static Policies none() {
    return new Policies(0, List.of());
  }

  /** The first rule matching the event. */
  public Optional<PolicyRule> match(EventView e) {
    return rules.stream().filter(r -> r.matches(e)).findFirst();
  }

  /**
   * Reads the keys below {@code fleet.policies.} (with that prefix removed); every problem names
   * its key.
   */
  public static Policies parse(Map<String, String> keys, List<ConfigProblem> problems) {
    if (keys.isEmpty()) {
      return none();
    }
    int version = 0;
    Map<String, Map<String, String>> byRule = new TreeMap<>();
    for (Map.Entry<String, String> e : keys.entrySet()) {
      String k = e.getKey();
      if (k.equals("version")) {
        try {
          version = Integer.parseInt(e.getValue().trim());
        } catch (NumberFormatException x) {
          problems.add(new ConfigProblem(KEY + ".version", "must be a whole number"));
        }
        continue;
      }
      String[] parts = k.split("\\.", 3);
      if (parts.length < 3 || !parts[0].equals("rules") || !FIELDS.contains(parts[2])) {
        problems.add(
            new ConfigProblem(
                KEY + "." + k,
                "unknown; a rule (rules.<name>.) takes "
                    + String.join(", ", new TreeSet<>(FIELDS))));
        continue;
      }
      byRule.computeIfAbsent(parts[1], n -> new TreeMap<>()).put(parts[2], e.getValue().trim());
    }
    if (!keys.containsKey("version")) {
      problems.add(
          new ConfigProblem(
              KEY + ".version", "is required with rules (it goes into every reason)"));
    }
    List<PolicyRule> rules = new ArrayList<>();
    byRule.forEach((name, f) -> rule(name, f, problems).ifPresent(rules::add));
    return new Policies(version, rules);
  }

  private static Optional<PolicyRule> rule(
      String name, Map<String, String> f, List<ConfigProblem> problems) {
    String at = KEY + ".rules." + name + ".";
    int before = problems.size();
    if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
      // It names the rule's rollouts (policy-<rule>-v<version>), whose entries are keyed by it.
      problems.add(
          new ConfigProblem(
              KEY + ".rules." + name, "a rule's name is 1 to 64 letters, digits, '-' or '_'"));
    }
    String action = f.get("action");
    if (action == null || !Set.of("approve", "rollout", "never").contains(action)) {
      problems.add(new ConfigProblem(at + "action", "must be approve, rollout or never"));
    }
    String source = f.get("match.source");
    if (source != null && !Set.of("Platform", "User").contains(source)) {
      problems.add(new ConfigProblem(at + "match.source", "must be Platform or User"));
    }
    Duration under = duration(f.get("match.duration-under"), at + "match.duration-under", problems);
    String dryRun = f.getOrDefault("dry-run", "false");
    if (!dryRun.equals("true") && !dryRun.equals("false")) {
      problems.add(new ConfigProblem(at + "dry-run", "must be true or false"));
    }
    RolloutSpec spec = null;
    if ("rollout".equals(action)) {
      spec =
          new RolloutSpec(
              List.of("policy"),
              f.getOrDefault("rollout.max-unavailable", "1"),
              list(f.get("rollout.group-by")),
              duration(f.get("rollout.settle"), at + "rollout.settle", problems),
              duration(f.get("rollout.timeout"), at + "rollout.timeout", problems));
      String p = spec.problem();
      if (p != null) {
        problems.add(new ConfigProblem(at + "rollout", p));
      }
    } else if (f.keySet().stream().anyMatch(k -> k.startsWith("rollout."))) {
      problems.add(new ConfigProblem(at + "rollout", "only with action: rollout"));
    }
    if (problems.size() > before) {
      return Optional.empty();
    }
    return Optional.of(
        new PolicyRule(
            name,
            list(f.get("match.type")),
            source,
            list(f.get("match.scale-set")),
            under,
            action,
            spec,
            Boolean.parseBoolean(dryRun)));
  }

  private static Duration duration(String text, String key, List<ConfigProblem> problems) {
    if (text == null) {
      return null;
    }
    try {
      return ConfigType.DURATION_TYPE.parse(text);
    } catch (RuntimeException e) {
      problems.add(new ConfigProblem(key, "is not a duration (9s, 2m, 1h): " + text));
      return null;
    }
  }

  private static List<String> list(String text) {
    return text == null || text.isBlank()
        ? List.of()
        : Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
