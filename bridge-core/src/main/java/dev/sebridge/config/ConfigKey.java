package dev.sebridge.config;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One configuration key: name, type, default, documentation and validation in a single definition.
 * The reference documentation ({@code docs/configuration.md}) is generated from these.
 *
 * <p>A key whose name ends with {@code .*} is a pass-through prefix: every key below it is accepted
 * and handed over verbatim (e.g. {@code sink.kafka.producer.*}).
 */
public final class ConfigKey<T> {
  private final String name;
  private final ConfigType<T> type;
  private final T defaultValue;
  private final String defaultDescription;
  private final String doc;
  private final boolean required;
  private final boolean secret;
  private final Function<T, Optional<String>> validator;

  private ConfigKey(Builder<T> b) {
    this.name = b.name;
    this.type = b.type;
    this.defaultValue = b.defaultValue;
    this.defaultDescription = b.defaultDescription;
    this.doc = Objects.requireNonNull(b.doc, "doc of " + b.name);
    this.required = b.required;
    this.secret = b.secret;
    this.validator = b.validator;
  }

  /** A validator refusing a duration below {@code min}, written {@code written} ("1s", "1d"). */
  public static java.util.function.Function<java.time.Duration, Optional<String>> atLeast(
      java.time.Duration min, String written) {
    return d ->
        d.compareTo(min) < 0 ? Optional.of("must be at least " + written) : Optional.empty();
  }

  public static <T> Builder<T> builder(String name, ConfigType<T> type) {
    return new Builder<>(name, type);
  }

  public String name() {
    return name;
  }

  public ConfigType<T> type() {
    return type;
  }

  public Optional<T> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /** The default as written in the docs ("-" when there is none). */
  public String defaultDescription() {
    if (defaultDescription != null) {
      return defaultDescription;
    }
    return defaultValue == null ? "-" : type.format(defaultValue);
  }

  public String doc() {
    return doc;
  }

  /** Required whenever the feature it belongs to is enabled (e.g. its sink is selected). */
  public boolean required() {
    return required;
  }

  /** Never logged or printed. */
  public boolean secret() {
    return secret;
  }

  public boolean isPrefix() {
    return name.endsWith(".*");
  }

  /** For a prefix key {@code a.b.*}: {@code a.b.}. */
  public String prefix() {
    return name.substring(0, name.length() - 1);
  }

  /** Parses and validates a raw value; the exception message does not repeat the key name. */
  public T parse(String raw) {
    T value = type.parse(raw);
    validator
        .apply(value)
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(problem);
            });
    return value;
  }

  @Override
  public String toString() {
    return name;
  }

  /** Builds a key. */
  public static final class Builder<T> {
    private final String name;
    private final ConfigType<T> type;
    private T defaultValue;
    private String defaultDescription;
    private String doc;
    private boolean required;
    private boolean secret;
    private Function<T, Optional<String>> validator = v -> Optional.empty();

    private Builder(String name, ConfigType<T> type) {
      this.name = Objects.requireNonNull(name);
      this.type = Objects.requireNonNull(type);
    }

    public Builder<T> defaultValue(T value) {
      this.defaultValue = value;
      return this;
    }

    /** How the default is described in the docs, when it depends on the platform. */
    public Builder<T> defaultDescription(String text) {
      this.defaultDescription = text;
      return this;
    }

    public Builder<T> doc(String doc) {
      this.doc = doc;
      return this;
    }

    public Builder<T> required() {
      this.required = true;
      return this;
    }

    public Builder<T> secret() {
      this.secret = true;
      return this;
    }

    /** A check returning a problem description, or empty when the value is fine. */
    public Builder<T> validator(Function<T, Optional<String>> validator) {
      this.validator = validator;
      return this;
    }

    public ConfigKey<T> build() {
      if (defaultValue != null) {
        // A default that fails its own validation is a bug in the definition.
        validator
            .apply(defaultValue)
            .ifPresent(
                p -> {
                  throw new IllegalStateException("default of " + name + " is invalid: " + p);
                });
      }
      return new ConfigKey<>(this);
    }
  }
}
