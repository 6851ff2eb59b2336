package dev.sebridge.spi;

/** A sink could not take a batch. Not retried unless it is a {@link RetriableSinkException}. */
public class SinkException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SinkException(String message, Throwable cause) {
    super(message, cause);
  }

  public SinkException(String message) {
    super(message);
  }
}
