package dev.sebridge.sink.loganalytics;

import com.azure.core.exception.HttpResponseException;
import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpResponse;
import com.azure.core.util.serializer.JsonSerializer;
import com.azure.core.util.serializer.TypeReference;
import com.azure.monitor.ingestion.LogsIngestionClient;
import com.azure.monitor.ingestion.models.LogsUploadException;
import com.azure.monitor.ingestion.models.LogsUploadOptions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The {@code loganalytics} sink: each envelope becomes one row ({@link RowMapping}) uploaded to a
 * data collection rule with the Logs Ingestion API.
 *
 * <p>A batch is cut into calls of at most {@link #MAX_CALL_BYTES} of JSON (the service takes 1 MB
 * per call), sent one after the other. The SDK's own retries are off: a failed call fails the
 * export and the outbox retries it, waiting at least as long as a 429 or 503 {@code Retry-After}
 * asks. Rows of calls that succeeded before a failure are remembered and not sent again on the
 * retry, so a throttled batch does not come back as duplicates; after a restart they may (with
 * identical {@code EnvelopeId}s, which the queries under {@code deploy/kql} deduplicate on).
 */
final class LogAnalyticsSink implements EventSink {
  /** Uncompressed JSON per call; the service's limit is 1 MB, the SDK splits above 1 MiB. */
  static final int MAX_CALL_BYTES = 1_000_000;

  /** How many recently accepted envelope ids are remembered to skip on a retry. */
  private static final int ACCEPTED_MEMORY = 4096;

  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  private final String name;
  private final LogsIngestionClient client;
  private final String ruleId;
  private final String stream;
  private final ExecutorService executor;
  private final Set<String> recentlyAccepted =
      java.util.Collections.newSetFromMap(
          new LinkedHashMap<>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
              return size() > ACCEPTED_MEMORY;
            }
          });
  private volatile boolean shutdown;

  LogAnalyticsSink(String name, LogsIngestionClient client, String ruleId, String stream) {
    this.name = name;
    this.client = client;
    this.ruleId = ruleId;
    this.stream = stream;
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "sebridge-loganalytics");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public CompletableFuture<Void> export(List<Envelope> batch) {
    if (shutdown) {
      return CompletableFuture.failedFuture(new SinkException(name + " sink is shut down"));
    }
    try {
      return CompletableFuture.runAsync(() -> upload(batch), executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(new SinkException(name + " sink is shut down"));
    }
  }

  private void upload(List<Envelope> batch) {
    List<Call> calls = calls(batch);
    for (Call call : calls) {
      try {
        client.upload(ruleId, stream, call.rows(), options());
      } catch (LogsUploadException e) {
        // One call per upload here, so one error: the service's answer to it.
        List<HttpResponseException> errors = e.getLogsUploadErrors();
        throw errors.isEmpty()
            ? new RetriableSinkException("upload to " + stream + " failed: " + e, e)
            : classify(errors.get(0));
      } catch (HttpResponseException e) {
        throw classify(e);
      } catch (RuntimeException e) {
        // Connection refused, TLS, token acquisition, timeouts: all may heal.
        throw new RetriableSinkException("upload to " + stream + " failed: " + e, e);
      }
      synchronized (recentlyAccepted) {
        recentlyAccepted.addAll(call.ids());
      }
    }
  }

  private record Call(List<Object> rows, List<String> ids) {}

  /** Rows not accepted yet, in order, cut into calls that fit the service's limit. */
  private List<Call> calls(List<Envelope> batch) {
    List<Call> calls = new ArrayList<>();
    List<Object> rows = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    long bytes = 2;
    for (Envelope e : batch) {
      synchronized (recentlyAccepted) {
        if (recentlyAccepted.contains(e.id())) {
          continue;
        }
      }
      ObjectNode row = RowMapping.row(e);
      int size = RowMapping.serialize(row).length + 1;
      if (!rows.isEmpty() && bytes + size > MAX_CALL_BYTES) {
        calls.add(new Call(rows, ids));
        rows = new ArrayList<>();
        ids = new ArrayList<>();
        bytes = 2;
      }
      rows.add(row);
      ids.add(e.id());
      bytes += size;
    }
    if (!rows.isEmpty()) {
      calls.add(new Call(rows, ids));
    }
    return calls;
  }

  private static LogsUploadOptions options() {
    // One call at a time and our own serializer (rows are Jackson trees, sent as they are).
    return new LogsUploadOptions().setMaxConcurrency(1).setObjectSerializer(RowSerializer.INSTANCE);
  }

  /** 429, 5xx, 408 and authorization failures may heal; 400 and 413 mean a bug of ours. */
  static SinkException classify(HttpResponseException e) {
    HttpResponse response = e.getResponse();
    int status = response == null ? 0 : response.getStatusCode();
    String what = "Logs Ingestion API answered " + status + ": " + firstLine(e.getMessage());
    Duration retryAfter = response == null ? null : retryAfter(response);
    if (status == 429 || status == 408 || status >= 500 || status == 401 || status == 403) {
      // 401/403: a role assignment can take minutes to reach the service after deployment.
      return new RetriableSinkException(what, e, retryAfter);
    }
    return new SinkException(what, e);
  }

  /** Retry-After in seconds or as an HTTP date; also the ms variant some Azure services send. */
  static Duration retryAfter(HttpResponse response) {
    String ms = response.getHeaderValue(HttpHeaderName.RETRY_AFTER_MS);
    if (ms == null) {
      ms = response.getHeaderValue(HttpHeaderName.X_MS_RETRY_AFTER_MS);
    }
    if (ms != null) {
      try {
        return Duration.ofMillis(Long.parseLong(ms.trim()));
      } catch (NumberFormatException ignored) {
        // fall through to Retry-After
      }
    }
    String v = response.getHeaderValue(HttpHeaderName.RETRY_AFTER);
    if (v == null || v.isBlank()) {
      return null;
    }
    try {
      return Duration.ofSeconds(Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      try {
        Duration d = Duration.between(OffsetDateTime.now(), OffsetDateTime.parse(v, HTTP_DATE));
        return d.isNegative() ? Duration.ZERO : d;
      } catch (DateTimeParseException ignored) {
        return null;
      }
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  @Override
  public CompletableFuture<Void> flush() {
    // Every export is synchronous with the service: nothing is buffered here.
    return CompletableFuture.runAsync(() -> {}, executor)
        .exceptionally(t -> null); // after shutdown there is nothing to flush either
  }

  @Override
  public CompletableFuture<Void> shutdown() {
    shutdown = true;
    executor.shutdown();
    return CompletableFuture.runAsync(
        () -> {
          try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }

  /** Writes the rows with Jackson; the SDK only needs serialization. */
  enum RowSerializer implements JsonSerializer {
    INSTANCE;

    @Override
    public <T> T deserialize(InputStream stream, TypeReference<T> typeReference) {
      throw new UnsupportedOperationException("rows are only sent");
    }

    @Override
    public <T> reactor.core.publisher.Mono<T> deserializeAsync(
        InputStream stream, TypeReference<T> typeReference) {
      return reactor.core.publisher.Mono.error(
          new UnsupportedOperationException("rows are only sent"));
    }

    @Override
    public void serialize(OutputStream stream, Object value) {
      try {
        stream.write(serializeToBytes(value));
      } catch (java.io.IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public byte[] serializeToBytes(Object value) {
      return RowMapping.serialize((JsonNode) value);
    }

    @Override
    public reactor.core.publisher.Mono<Void> serializeAsync(OutputStream stream, Object value) {
      return reactor.core.publisher.Mono.fromRunnable(() -> serialize(stream, value));
    }
  }
}
