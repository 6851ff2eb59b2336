package dev.sebridge.imds;

import java.time.Duration;

/**
 * Why an IMDS request did not yield what was asked for.
 *
 * @param kind the class of failure
 * @param httpStatus the HTTP status, or 0 when there was no answer
 * @param detail human-readable detail (never includes secrets: IMDS has none)
 * @param latency how long the attempt took
 */
public record ImdsFailure(Kind kind, int httpStatus, String detail, Duration latency) {

  /** Classes of failure; all but {@link #BAD_REQUEST} heal by themselves. */
  public enum Kind {
    /** 400: the request is malformed. A bug on our side; retrying blindly will not help. */
    BAD_REQUEST("bad_request"),
    /** 429: too many requests. Back off harder. */
    THROTTLED("throttled"),
    /** 410: IMDS asks to retry (up to about 70 s). */
    GONE("gone"),
    /** 404. */
    NOT_FOUND("not_found"),
    /** 5xx. */
    SERVER_ERROR("server_error"),
    /** Any other status. */
    UNEXPECTED_STATUS("unexpected_status"),
    /** No answer in time. */
    TIMEOUT("timeout"),
    /** Refused, reset, unreachable. */
    CONNECTION("connection"),
    /** A 200 whose body is not a valid document (invalid JSON, another JSON, too large). */
    MALFORMED("malformed");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** Metric and log label. */
    public String label() {
      return label;
    }
  }

  public boolean isTransient() {
    return kind != Kind.BAD_REQUEST;
  }

  @Override
  public String toString() {
    return kind.label() + (httpStatus > 0 ? " (HTTP " + httpStatus + ")" : "") + ": " + detail;
  }
}
