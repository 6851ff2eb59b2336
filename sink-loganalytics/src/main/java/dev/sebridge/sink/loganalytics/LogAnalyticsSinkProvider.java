package dev.sebridge.sink.loganalytics;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.core.http.policy.FixedDelayOptions;
import com.azure.core.http.policy.HttpLogDetailLevel;
import com.azure.core.http.policy.HttpLogOptions;
import com.azure.core.http.policy.RetryOptions;
import com.azure.monitor.ingestion.LogsIngestionClient;
import com.azure.monitor.ingestion.LogsIngestionClientBuilder;
import dev.sebridge.azure.AzureCredentials;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** The {@code loganalytics} sink: rows to a data collection rule through the Logs Ingestion API. */
public final class LogAnalyticsSinkProvider implements EventSinkProvider {
  private static final Pattern RULE_ID = Pattern.compile("dcr-[0-9a-f]{32}");
  private static final Pattern STREAM = Pattern.compile("(Custom|Microsoft)-[A-Za-z0-9_]{1,100}");

  public static final ConfigKey<URI> ENDPOINT =
      ConfigKey.builder("sink.loganalytics.endpoint", ConfigType.HTTP_URL)
          .required()
          .doc(
              "Log Analytics sink: the logs ingestion endpoint of the data collection rule (or of"
                  + " its data collection endpoint), e.g."
                  + " https://<dcr>-abcd.westeurope-1.ingest.monitor.azure.com. HTTPS only.")
          .validator(
              u ->
                  "https".equalsIgnoreCase(u.getScheme())
                      ? Optional.empty()
                      : Optional.of("must be https (a bearer token is never sent in clear)"))
          .build();

  public static final ConfigKey<String> RULE_ID_KEY =
      ConfigKey.builder("sink.loganalytics.rule-id", ConfigType.STRING)
          .required()
          .doc(
              "Log Analytics sink: the data collection rule's immutable id (dcr-<32 hex>), as"
                  + " shown in the rule's JSON view.")
          .validator(
              s ->
                  RULE_ID.matcher(s).matches()
                      ? Optional.empty()
                      : Optional.of("must be a DCR immutable id, dcr- and 32 lowercase hex digits"))
          .build();

  public static final ConfigKey<String> STREAM_KEY =
      ConfigKey.builder("sink.loganalytics.stream", ConfigType.STRING)
          .defaultValue("Custom-VmScheduledEvents_CL")
          .doc(
              "Log Analytics sink: the rule's input stream, declared as in"
                  + " deploy/loganalytics/columns.json.")
          .validator(
              s ->
                  STREAM.matcher(s).matches()
                      ? Optional.empty()
                      : Optional.of(
                          "must be a DCR stream name such as Custom-VmScheduledEvents_CL"))
          .build();

  public static final ConfigKey<String> CREDENTIAL =
      AzureCredentials.credentialKey(
          "sink.loganalytics",
          "Log Analytics sink",
          "the Monitoring Metrics Publisher role on the rule");

  public static final ConfigKey<String> CLIENT_ID =
      AzureCredentials.clientIdKey("sink.loganalytics", "Log Analytics sink");

  @Override
  public String name() {
    return "loganalytics";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of(ENDPOINT, RULE_ID_KEY, STREAM_KEY, CREDENTIAL, CLIENT_ID);
  }

  @Override
  public EventSink create(SinkContext context) {
    Configuration config = context.config();
    return create(
        config,
        dev.sebridge.azure.AzureTokens.from(config, CREDENTIAL, CLIENT_ID),
        new JdkHttpClientBuilder().build());
  }

  /** With a given credential and HTTP client (tests use their own TLS trust). */
  static EventSink create(Configuration config, TokenCredential credential, HttpClient http) {
    LogsIngestionClient client =
        new LogsIngestionClientBuilder()
            .endpoint(config.get(ENDPOINT).toString())
            .credential(credential)
            .httpClient(http)
            // The outbox retries (with backoff, Retry-After and a circuit breaker): no SDK retries.
            .retryOptions(new RetryOptions(new FixedDelayOptions(0, Duration.ofMillis(1))))
            .httpLogOptions(new HttpLogOptions().setLogLevel(HttpLogDetailLevel.NONE))
            .buildClient();
    return new LogAnalyticsSink(
        "loganalytics", client, config.get(RULE_ID_KEY), config.get(STREAM_KEY));
  }
}
