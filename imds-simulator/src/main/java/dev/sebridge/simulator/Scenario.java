package dev.sebridge.simulator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A timeline to play against a simulator, from a JSON or YAML file:
 *
 * <pre>
 * timeScale: 60             # simulated seconds per real second
 * vms:
 *   - {name: WestNO_0, vmId: 5c2e3c9a-0000-4000-8000-000000000000}
 * steps:
 *   - at: 0s                # simulated time from the start of the scenario
 *     action: schedule      # schedule | hardware-failure | start | complete | cancel | reschedule | fault
 *     event: {eventId: E1, eventType: Freeze, resources: [WestNO_0], noticeSeconds: 900}
 *   - at: 5m
 *     action: cancel
 *     eventId: E1
 *   - at: 6m
 *     action: fault
 *     fault: {kind: status, status: 500}
 *     times: 3
 * </pre>
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record Scenario(String name, Double timeScale, List<SimVm> vms, List<Step> steps) {

  private static final Logger LOG = LoggerFactory.getLogger(Scenario.class);
  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

  public Scenario {
    name = name == null ? "scenario" : name;
    vms = vms == null ? List.of() : List.copyOf(vms);
    steps = steps == null ? List.of() : List.copyOf(steps);
    steps = steps.stream().sorted(Comparator.comparingDouble(Step::atSeconds)).toList();
  }

  /** One step of the timeline. */
  @JsonIgnoreProperties(ignoreUnknown = false)
  public record Step(
      String at,
      String action,
      EventSpec event,
      String eventId,
      Fault fault,
      Integer times,
      Double noticeSeconds) {

    public Step {
      at = at == null ? "0s" : at;
      if (action == null) {
        throw new IllegalArgumentException("scenario step at " + at + " has no action");
      }
      times = times == null ? 1 : times;
    }

    public double atSeconds() {
      return seconds(at);
    }
  }

  /** Parses "90", "90s", "1.5m", "250ms", "2h" as simulated seconds. */
  static double seconds(String text) {
    Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("not a duration: " + text);
    }
    double v = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> v / 1000;
      case "m" -> v * 60;
      case "h" -> v * 3600;
      default -> v;
    };
  }

  public static Scenario parse(byte[] content, boolean yaml) {
    ObjectMapper mapper =
        (yaml ? new ObjectMapper(new YAMLFactory()) : new ObjectMapper())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    try {
      return mapper.readValue(content, Scenario.class);
    } catch (IOException e) {
      throw new IllegalArgumentException("invalid scenario: " + e.getMessage(), e);
    }
  }

  public static Scenario load(Path file) {
    try {
      String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
      return parse(Files.readAllBytes(file), n.endsWith(".yaml") || n.endsWith(".yml"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read scenario " + file, e);
    }
  }

  /** Loads a scenario bundled in this module, e.g. {@code demo}. */
  public static Scenario builtIn(String name) {
    try (InputStream in = Scenario.class.getResourceAsStream("/scenarios/" + name + ".yaml")) {
      if (in == null) {
        throw new IllegalArgumentException("no built-in scenario " + name);
      }
      return parse(in.readAllBytes(), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Real time the scenario takes to play its steps at the given scale. */
  public Duration length(double scale) {
    double last = steps.isEmpty() ? 0 : steps.get(steps.size() - 1).atSeconds();
    return Duration.ofMillis(Math.round(last * 1000 / scale));
  }

  /** Plays the steps against the simulator, in real time scaled by its time scale; blocks. */
  public void play(ImdsSimulator sim) {
    long start = System.nanoTime();
    List<Step> todo = new ArrayList<>(steps);
    for (Step step : todo) {
      long dueNanos = start + Math.round(step.atSeconds() * 1e9 / sim.timeScale());
      long wait = dueNanos - System.nanoTime();
      if (wait > 0) {
        try {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      try {
        apply(sim, step);
      } catch (RuntimeException e) {
        LOG.warn(
            "scenario '{}' step at {} ({}) failed: {}",
            name,
            step.at(),
            step.action(),
            e.getMessage());
      }
    }
  }

  static void apply(ImdsSimulator sim, Step step) {
    switch (step.action()) {
      case "schedule" -> sim.addEvent(required(step.event(), step, "event"));
      case "hardware-failure" ->
          sim.addEvent(required(step.event(), step, "event").asHardwareFailure());
      case "start" -> sim.startEvent(required(step.eventId(), step, "eventId"));
      case "complete" -> sim.completeEvent(required(step.eventId(), step, "eventId"));
      case "cancel" -> sim.cancelEvent(required(step.eventId(), step, "eventId"));
      case "reschedule" ->
          sim.rescheduleEvent(
              required(step.eventId(), step, "eventId"),
              required(step.noticeSeconds(), step, "noticeSeconds"));
      case "fault" -> sim.injectFault(required(step.fault(), step, "fault"), step.times());
      default -> throw new IllegalArgumentException("unknown scenario action " + step.action());
    }
  }

  private static <T> T required(T value, Step step, String field) {
    if (value == null) {
      throw new IllegalArgumentException(
          "scenario step '" + step.action() + "' at " + step.at() + " needs " + field);
    }
    return value;
  }
}
