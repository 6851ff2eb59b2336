package dev.sebridge.sink.loganalytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.sink.loganalytics.testing.LogsIngestionEndpoint;
import dev.sebridge.sink.loganalytics.testing.StreamDeclaration;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkException;
import dev.sebridge.testing.EventSinkContractTest;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The shared sink contract and the Logs Ingestion specifics, with the real {@code
 * LogsIngestionClient} over HTTPS against {@link LogsIngestionEndpoint}.
 */
class LogAnalyticsSinkTest extends EventSinkContractTest {
  static final String RULE = "dcr-0123456789abcdef0123456789abcdef";
  static final String STREAM = DeployDeclarations.STREAM;

  LogsIngestionEndpoint endpoint;
  final AtomicInteger tokensIssued = new AtomicInteger();

  @Override
  protected EventSink createSink() throws Exception {
    endpoint = LogsIngestionEndpoint.start(RULE, STREAM);
    TokenCredential credential =
        request -> {
          assertThat(request.getScopes()).containsExactly("https://monitor.azure.com//.default");
          tokensIssued.incrementAndGet();
          return Mono.just(new AccessToken("test-token", OffsetDateTime.now().plusHours(1)));
        };
    Configuration config =
        Configuration.of(
            Map.of(
                "sink.loganalytics.endpoint",
                endpoint.endpoint(),
                "sink.loganalytics.rule-id",
                RULE));
    return LogAnalyticsSinkProvider.create(
        config,
        credential,
        new JdkHttpClientBuilder(
                java.net.http.HttpClient.newBuilder().sslContext(endpoint.clientContext()))
            .build());
  }

  @AfterEach
  void stopEndpoint() {
    if (endpoint != null) {
      endpoint.close();
    }
  }

  @Override
  protected List<String> delivered(int expected, Duration timeout) {
    // Every export returns only once the service answered: nothing arrives later.
    return endpoint.rows().stream().map(r -> r.get("Envelope").toString()).toList();
  }

  static List<String> ids(List<JsonNode> rows) {
    return rows.stream().map(r -> r.get("EnvelopeId").asText()).toList();
  }

  static List<String> envelopeIds(List<Envelope> envs) {
    return envs.stream().map(Envelope::id).toList();
  }

  /** Envelopes whose Description makes them about {@code bytes} long. */
  static List<Envelope> large(int n, int bytes) throws Exception {
    List<Envelope> out = new ArrayList<>();
    for (Envelope e : EventSinkContractTest.envelopes("vm-large", n)) {
      String body = e.bodyAsString().replace("ünïcødé ✓", "x".repeat(bytes - e.size()));
      out.add(Envelope.fromJson(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    return out;
  }

  @Test
  void callsFollowTheUploadContract() throws Exception {
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-7", 3);
    sink.export(envs).get(30, TimeUnit.SECONDS);
    assertThat(endpoint.calls()).hasSize(1);
    LogsIngestionEndpoint.Call call = endpoint.calls().get(0);
    assertThat(call.status()).isEqualTo(204);
    assertThat(call.ruleId()).isEqualTo(RULE);
    assertThat(call.stream()).isEqualTo(STREAM);
    assertThat(call.apiVersion()).isEqualTo(LogsIngestionEndpoint.API_VERSION);
    assertThat(call.authorization()).isEqualTo("Bearer test-token");
    assertThat(call.contentEncoding()).isEqualTo("gzip");
    assertThat(call.rows()).isEqualTo(3);
    StreamDeclaration declared = StreamDeclaration.fromRepository();
    for (JsonNode row : endpoint.rows()) {
      assertThat(declared.problems(row)).isEmpty();
      assertThat(row.get("VmId").asText()).isEqualTo("vm-7");
    }
    assertThat(ids(endpoint.rows())).isEqualTo(envelopeIds(envs));
  }

  @Test
  void aBatchOverOneMegabyteGoesInSeveralCallsUnderTheLimitInOrder() throws Exception {
    List<Envelope> envs = large(40, 60_000); // 2.4 MB of rows
    sink.export(envs).get(60, TimeUnit.SECONDS);
    List<LogsIngestionEndpoint.Call> calls = endpoint.calls();
    assertThat(calls).hasSizeGreaterThanOrEqualTo(3);
    assertThat(calls)
        .allSatisfy(
            c -> {
              assertThat(c.status()).isEqualTo(204);
              assertThat(c.uncompressedBytes()).isLessThanOrEqualTo(1_000_000);
            });
    assertThat(ids(endpoint.rows())).isEqualTo(envelopeIds(envs));
  }

  @Test
  void throttlingIsRetriableAndCarriesRetryAfterAndTheSdkDoesNotRetryOnItsOwn() throws Exception {
    endpoint.failNext(1, 429, Map.of("Retry-After", "7"));
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-8", 2);
    assertThatThrownBy(() -> sink.export(envs).get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            RetriableSinkException.class,
            e -> assertThat(e.retryAfter()).contains(Duration.ofSeconds(7)));
    assertThat(endpoint.calls()).hasSize(1); // the outbox owns retries, with its backoff
    sink.export(envs).get(30, TimeUnit.SECONDS);
    assertThat(ids(endpoint.rows())).isEqualTo(envelopeIds(envs));
  }

  @Test
  void serverErrorsAreRetriableAndABadRequestIsNot() throws Exception {
    endpoint.failNext(1, 503, Map.of());
    endpoint.failNext(1, 400, Map.of());
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-9", 1);
    assertThatThrownBy(() -> sink.export(envs).get(30, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(RetriableSinkException.class)
        .hasMessageContaining("503");
    assertThatThrownBy(() -> sink.export(envs).get(30, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(SinkException.class)
        .isNotInstanceOf(RetriableSinkException.class)
        .hasMessageContaining("400");
    sink.export(envs).get(30, TimeUnit.SECONDS);
    assertThat(ids(endpoint.rows())).isEqualTo(envelopeIds(envs));
  }

  @Test
  void aRetryAfterAPartialFailureSendsOnlyTheRowsNotYetAccepted() throws Exception {
    List<Envelope> envs = large(40, 60_000);
    endpoint.passNext(1);
    endpoint.failNext(1, 500, Map.of());
    assertThatThrownBy(() -> sink.export(envs).get(60, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(RetriableSinkException.class);
    int acceptedFirst = endpoint.rows().size();
    assertThat(acceptedFirst).isBetween(1, 39);
    sink.export(envs).get(60, TimeUnit.SECONDS);
    assertThat(ids(endpoint.rows())).isEqualTo(envelopeIds(envs)); // each row exactly once
  }

  @Test
  void anUnreachableEndpointIsRetriableAndDeliveryResumesWhenItIsBack() throws Exception {
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-10", 4);
    sink.export(envs.subList(0, 2)).get(30, TimeUnit.SECONDS);
    endpoint.stop();
    assertThatThrownBy(() -> sink.export(envs.subList(2, 4)).get(60, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(RetriableSinkException.class);
    endpoint.restart();
    sink.export(envs.subList(2, 4)).get(30, TimeUnit.SECONDS);
    assertThat(ids(endpoint.rows())).isEqualTo(envelopeIds(envs));
    assertThat(tokensIssued.get()).isGreaterThanOrEqualTo(1);
  }
}
