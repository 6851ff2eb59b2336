package dev.sebridge.config;

/** One thing wrong with a configuration, naming the key. */
public record ConfigProblem(String key, String message) {
  @Override
  public String toString() {
    return key + ": " + message;
  }
}
