package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * What a body that was not taken is answered. The deadline decides by itself: once it came first,
 * the answer is 408 whatever failure the read reports after it. Before, the answer followed the
 * failure's type only, and a CI run (2026-11-29, {@code FleetServerLimitsTest
 * .aBodyDrippedInIsAnswered408AtItsDeadline}) answered a body dripped past its deadline 400 at the
 * deadline: the read reported the failed request as another exception.
 */
class BodyReaderTest {
  @Test
  void aReadThatEndsAfterTheDeadlineIs408WhateverItsFailure() {
    for (Throwable failure :
        new Throwable[] {
          new IOException("closed"),
          new org.eclipse.jetty.io.EofException("reset"),
          new CompletionException(new IllegalStateException("cancelled")),
          new IllegalStateException("Max size (65536) exceeded"),
          null
        }) {
      assertThat(BodyReader.refusal(true, failure).status())
          .as(String.valueOf(failure))
          .isEqualTo(408);
    }
  }

  @Test
  void beforeTheDeadlineTheFailureDecides() {
    assertThat(BodyReader.refusal(false, new TimeoutException("idle")).status()).isEqualTo(408);
    assertThat(
            BodyReader.refusal(false, new IOException("wrapped", new TimeoutException("idle")))
                .status())
        .as("a timeout among its causes")
        .isEqualTo(408);
    assertThat(
            BodyReader.refusal(
                    false,
                    new CompletionException(new IllegalStateException("Max size (65536) exceeded")))
                .status())
        .isEqualTo(413);
    assertThat(
            BodyReader.refusal(false, new org.eclipse.jetty.http.BadMessageException(400, "bad"))
                .status())
        .isEqualTo(400);
    assertThat(BodyReader.refusal(false, new IOException("reset by peer")).status()).isEqualTo(400);
  }
}
