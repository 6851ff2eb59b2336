package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** Who reported an event first: an agent (through IMDS) or Azure's central delivery. */
public enum Source {
  AGENT,
  AZURE;

  @JsonValue
  public String json() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
