package dev.sebridge.sink.eventhubs;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.core.util.ClientOptions;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import dev.sebridge.azure.AzureCredentials;
import dev.sebridge.config.ConfigException;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an Event Hubs client connects and how it authenticates, as one set of keys under a prefix
 * ({@code sink.eventhubs}, {@code commands.eventhubs}): the namespace and hub with a Microsoft
 * Entra ID credential (managed identity by default), or a connection string as a fallback, which is
 * a secret and never logged.
 */
public final class EventHubsEndpoint {
  private static final Pattern NAMESPACE =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?(:[0-9]{1,5})?");
  private static final Pattern HUB = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,255}");
  private static final Pattern ENTITY_PATH =
      Pattern.compile("(?i)(?:^|;)\\s*EntityPath\\s*=\\s*([^;]*)");
  private static final Pattern ENDPOINT = Pattern.compile("(?i)(?:^|;)\\s*Endpoint\\s*=\\s*sb://");

  final ConfigKey<String> namespace;
  final ConfigKey<String> name;
  final ConfigKey<String> connectionString;
  final ConfigKey<String> credential;
  final ConfigKey<String> clientId;

  /**
   * @param component for the documentation, e.g. "Event Hubs sink"
   * @param defaultHub the hub's default name, or null when it must be set
   * @param role the data role the identity needs
   */
  EventHubsEndpoint(String prefix, String component, String defaultHub, String role) {
    namespace =
        ConfigKey.builder(prefix + ".namespace", ConfigType.STRING)
            .doc(
                component
                    + ": fully qualified namespace, e.g. myns.servicebus.windows.net. Required"
                    + " unless "
                    + prefix
                    + ".connection-string is set.")
            .validator(
                s ->
                    NAMESPACE.matcher(s).matches()
                        ? Optional.empty()
                        : Optional.of("must be a host name such as myns.servicebus.windows.net"))
            .build();
    ConfigKey.Builder<String> hub =
        ConfigKey.builder(prefix + ".name", ConfigType.STRING)
            .doc(component + ": the event hub's name.")
            .validator(
                s ->
                    HUB.matcher(s).matches()
                        ? Optional.empty()
                        : Optional.of("must be an event hub name (letters, digits, . _ -)"));
    name = (defaultHub == null ? hub : hub.defaultValue(defaultHub)).build();
    connectionString =
        ConfigKey.builder(prefix + ".connection-string", ConfigType.STRING)
            .secret()
            .doc(
                component
                    + ": a shared access connection string, instead of a Microsoft Entra ID"
                    + " identity (Endpoint=sb://...;SharedAccessKeyName=...;SharedAccessKey=...)."
                    + " Put it in the environment (SEBRIDGE_..._CONNECTION_STRING).")
            .validator(
                s ->
                    ENDPOINT.matcher(s).find()
                        ? Optional.empty()
                        : Optional.of(
                            "must be an Event Hubs connection string (Endpoint=sb://...)"))
            .build();
    credential = AzureCredentials.credentialKey(prefix, component, role);
    clientId = AzureCredentials.clientIdKey(prefix, component);
  }

  List<ConfigKey<?>> keys() {
    return List.of(namespace, name, connectionString, credential, clientId);
  }

  /** Problems across keys: one way to connect, and a hub name. */
  List<ConfigProblem> validate(Configuration config) {
    List<ConfigProblem> problems = new ArrayList<>();
    Optional<String> cs = config.find(connectionString);
    if (cs.isEmpty() && config.find(namespace).isEmpty()) {
      problems.add(
          new ConfigProblem(
              namespace.name(),
              "is required (or set " + connectionString.name() + ", a shared access secret)"));
    }
    Optional<String> entity = cs.flatMap(EventHubsEndpoint::entityPath);
    if (entity.isPresent()
        && config.find(name).isPresent()
        && !entity.get().equals(config.find(name).get())) {
      problems.add(
          new ConfigProblem(
              name.name(),
              "is "
                  + config.find(name).get()
                  + " but the connection string's EntityPath names another hub"));
    }
    if (entity.isEmpty() && config.find(name).or(name::defaultValue).isEmpty()) {
      problems.add(new ConfigProblem(name.name(), "is required"));
    }
    return problems;
  }

  static Optional<String> entityPath(String connectionString) {
    Matcher m = ENTITY_PATH.matcher(connectionString);
    return m.find() ? Optional.of(m.group(1).trim()).filter(s -> !s.isEmpty()) : Optional.empty();
  }

  /** The hub this configuration names. */
  String hub(Configuration config) {
    return config
        .find(name)
        .or(() -> config.find(connectionString).flatMap(EventHubsEndpoint::entityPath))
        .or(name::defaultValue)
        .orElseThrow(() -> new ConfigException(name.name(), "is required"));
  }

  /** Which way it authenticates, for logs (never the secret). */
  String describe(Configuration config) {
    if (config.find(connectionString).isPresent()) {
      return "hub " + hub(config) + " (connection string)";
    }
    return "hub "
        + hub(config)
        + " in "
        + config.get(namespace)
        + " ("
        + config.get(credential).toLowerCase(Locale.ROOT)
        + config.find(clientId).map(c -> " " + c).orElse("")
        + ")";
  }

  /** A client builder for this endpoint, with retries suited to an outbox that retries itself. */
  EventHubClientBuilder builder(Configuration config, AmqpRetryOptions retry) {
    EventHubClientBuilder b =
        new EventHubClientBuilder()
            .retryOptions(retry)
            .clientOptions(new ClientOptions().setApplicationId("sebridge"));
    Optional<String> cs = config.find(connectionString);
    if (cs.isPresent()) {
      // With EntityPath in it, the one-argument form; otherwise the hub comes from the name key.
      return entityPath(cs.get()).isPresent()
          ? b.connectionString(cs.get())
          : b.connectionString(cs.get(), hub(config));
    }
    return b.credential(
        config.get(namespace),
        hub(config),
        dev.sebridge.azure.AzureTokens.from(config, credential, clientId));
  }

  /**
   * Retries for one operation: one, because the outbox (or the command loop) retries with its own
   * backoff and must get an answer within its 30 s export timeout: at most 8 s + about 5 s + 8 s.
   * (The client adds 4 s to the delay for a busy server; the maximum delay must stay above that
   * sum, or its backoff computation fails.)
   */
  static AmqpRetryOptions retries() {
    return new AmqpRetryOptions()
        .setMode(AmqpRetryMode.EXPONENTIAL)
        .setMaxRetries(1)
        .setDelay(Duration.ofSeconds(1))
        .setMaxDelay(Duration.ofSeconds(6))
        .setTryTimeout(Duration.ofSeconds(8));
  }
}
