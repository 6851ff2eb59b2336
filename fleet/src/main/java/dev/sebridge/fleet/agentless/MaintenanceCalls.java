package dev.sebridge.fleet.agentless;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpPipeline;
import com.azure.core.http.HttpPipelineBuilder;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.policy.BearerTokenAuthenticationPolicy;
import com.azure.core.http.policy.ExponentialBackoff;
import com.azure.core.http.policy.RequestIdPolicy;
import com.azure.core.http.policy.RetryPolicy;
import com.azure.core.http.policy.TimeoutPolicy;
import com.azure.core.http.policy.UserAgentPolicy;
import com.azure.core.util.Context;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;

/**
 * How {@link MaintenanceApi} calls Azure: through the Azure SDK's HTTP pipeline (a bearer token for
 * the ARM endpoint, 408, 429 and 5xx retried with exponential backoff as Azure's {@code
 * Retry-After} asks, each try bounded by {@link MaintenanceApi#TRY_TIMEOUT}), each call bounded by
 * {@link MaintenanceApi#CALL_TIMEOUT} and the approval's deadline. A call that fails on the way is
 * an answer with the outcome to report, never an exception.
 */
final class MaintenanceCalls {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpPipeline pipeline;
  private final Clock clock;

  MaintenanceCalls(HttpPipeline pipeline, Clock clock) {
    this.pipeline = pipeline;
    this.clock = clock;
  }

  /** The pipeline for Azure Resource Manager at {@code endpoint} (no trailing slash). */
  static HttpPipeline pipeline(
      TokenCredential credential, HttpClient http, Duration firstRetryDelay, String endpoint) {
    return new HttpPipelineBuilder()
        .httpClient(http)
        .policies(
            new UserAgentPolicy("sebridge-fleet"),
            new RequestIdPolicy(),
            new RetryPolicy(
                new ExponentialBackoff(
                    MaintenanceApi.RETRIES, firstRetryDelay, Duration.ofSeconds(30))),
            new TimeoutPolicy(MaintenanceApi.TRY_TIMEOUT),
            new BearerTokenAuthenticationPolicy(credential, endpoint + "/.default"))
        .build();
  }

  /** An answer: its status and body, or what went wrong on the way. */
  record Answer(int status, JsonNode body, MaintenanceApi.Outcome failure) {}

  Answer send(HttpRequest request, Instant deadline) {
    Duration left = Duration.between(clock.instant(), deadline);
    if (left.isNegative() || left.isZero()) {
      return new Answer(
          0,
          JSON.nullNode(),
          MaintenanceApi.Outcome.failed(
              "expired",
              "not sent: the approval's lifetime ended at " + deadline + " before this call"));
    }
    Duration bound =
        left.compareTo(MaintenanceApi.CALL_TIMEOUT) < 0 ? left : MaintenanceApi.CALL_TIMEOUT;
    try {
      return pipeline
          .send(request, Context.NONE)
          .flatMap(
              r ->
                  r.getBodyAsByteArray()
                      .defaultIfEmpty(new byte[0])
                      .map(b -> new Answer(r.getStatusCode(), json(b), null))
                      .doFinally(signal -> r.close()))
          .timeout(bound)
          .block();
    } catch (RuntimeException e) {
      Throwable cause = Exceptions.unwrap(e);
      LOG.warn("Maintenance API: {} {} failed", request.getHttpMethod(), request.getUrl(), cause);
      return new Answer(
          0,
          JSON.nullNode(),
          cause instanceof TimeoutException
              ? MaintenanceApi.Outcome.failed(
                  "unconfirmed",
                  "no answer from Azure's Maintenance API within "
                      + bound.toSeconds()
                      + " s (retries and Azure's Retry-After included): whether it was"
                      + " acknowledged is unknown")
              : MaintenanceApi.Outcome.failed(
                  "unreachable",
                  "Azure's Maintenance API could not be reached after up to "
                      + (MaintenanceApi.RETRIES + 1)
                      + " tries: "
                      + cause.getMessage()));
    }
  }

  private static JsonNode json(byte[] bytes) {
    try {
      JsonNode n = bytes.length == 0 ? null : JSON.readTree(bytes);
      return n == null ? JSON.nullNode() : n;
    } catch (java.io.IOException notJson) {
      return JSON.nullNode();
    }
  }
}
