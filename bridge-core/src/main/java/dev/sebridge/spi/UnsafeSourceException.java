package dev.sebridge.spi;

/**
 * A command source refuses to read because what it would read from is configured so that a record
 * could harm the agent (for example a commands topic whose records can decompress to any size). No
 * retry heals it: the agent reports it ({@code /readyz}, one ERROR) and checks again now and then,
 * while everything else goes on. The message says what to change.
 */
public class UnsafeSourceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UnsafeSourceException(String message) {
    super(message);
  }
}
