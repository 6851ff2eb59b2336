package dev.sebridge.imds;

import java.time.Duration;

/** The outcome of an IMDS request: a value, or a classified failure. Never both, never neither. */
public sealed interface ImdsResult<T> {

  /** A 200 with a valid answer. */
  record Ok<T>(T value, Duration latency) implements ImdsResult<T> {}

  /** Anything else. */
  record Failed<T>(ImdsFailure failure) implements ImdsResult<T> {}
}
