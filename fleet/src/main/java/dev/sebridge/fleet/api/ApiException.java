package dev.sebridge.fleet.api;

/** An answer other than 2xx, with the reason the client gets in {@code {"error": ...}}. */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;

  public ApiException(int status, String message) {
    super(message);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
