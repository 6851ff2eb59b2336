package dev.sebridge.validators;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.envelope.Envelope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every kind of envelope, read by the official CloudEvents SDK for JavaScript in structured mode
 * with the content type the Kafka and Event Hubs sinks send ({@link Envelope#CONTENT_TYPE}). The
 * SDK compares the charset parameter verbatim: {@code charset=UTF-8} is refused, so sebridge sends
 * the lower-case form.
 */
class CloudEventsSdkTest {
  @Test
  void theSdkReadsEveryEnvelopeWithTheContentTypeWeSend() throws Exception {
    List<String> args = new ArrayList<>(List.of("--content-type", Envelope.CONTENT_TYPE));
    for (String dir :
        List.of(
            "1.0/envelope",
            "1.0/result",
            "1.1/result",
            "1.0/heartbeat",
            "1.1/heartbeat",
            "1.0/command")) {
      try (Stream<Path> files = Files.list(StrictSchemaTest.GOLDEN.resolve(dir).resolve("valid"))) {
        files.sorted().forEach(f -> args.add(f.toString()));
      }
    }
    NodeTools.Result r = NodeTools.node("cloudevents-check.js", args);
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("read by the CloudEvents SDK");
  }

  @Test
  void theUpperCaseCharsetIsWhatTheSdkRefuses() throws Exception {
    Path one;
    try (Stream<Path> files =
        Files.list(StrictSchemaTest.GOLDEN.resolve("1.0/envelope").resolve("valid"))) {
      one = files.sorted().findFirst().orElseThrow();
    }
    NodeTools.Result r =
        NodeTools.node(
            "cloudevents-check.js",
            List.of(
                "--content-type", "application/cloudevents+json; charset=UTF-8", one.toString()));
    assertThat(r.exit()).as("the check can fail").isEqualTo(1);
  }
}
