package dev.sebridge.state;

/** The state directory cannot be used (permissions, disk, another agent holds it). */
public final class StateDirectoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StateDirectoryException(String message) {
    super(message);
  }

  public StateDirectoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
