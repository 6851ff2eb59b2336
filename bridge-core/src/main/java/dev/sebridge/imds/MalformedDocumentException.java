package dev.sebridge.imds;

/** An answer that is not a valid scheduled events document. Never to be read as "no events". */
public final class MalformedDocumentException extends Exception {
  private static final long serialVersionUID = 1L;

  public MalformedDocumentException(String message) {
    super(message);
  }
}
