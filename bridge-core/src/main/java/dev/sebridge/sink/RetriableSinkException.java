package dev.sebridge.sink;

/** A failure that may heal by itself (broker down, timeout, throttling): the core retries. */
public class RetriableSinkException extends SinkException {
  private static final long serialVersionUID = 1L;

  public RetriableSinkException(String message, Throwable cause) {
    super(message, cause);
  }

  public RetriableSinkException(String message) {
    super(message);
  }
}
