package dev.sebridge.fleet.api;

import java.util.Map;

/**
 * An answer other than 2xx, with the reason the client gets in {@code {"error": ...}} and, where
 * the contract says so, more fields beside it (a request id whose state is unknown).
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;
  private final transient Map<String, String> fields;

  public ApiException(int status, String message) {
    this(status, message, Map.of());
  }

  public ApiException(int status, String message, Map<String, String> fields) {
    super(message);
    this.status = status;
    this.fields = Map.copyOf(fields);
  }

  public int status() {
    return status;
  }

  /** Fields the answer carries beside {@code error}. */
  public Map<String, String> fields() {
    return fields;
  }
}
