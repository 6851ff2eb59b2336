package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** Runs the README's main-job command ({@code sebridge demo}), faster. */
// Exclusive: time scale 120: a stalled poll misses documents.
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ_WRITE)
class DemoCommandTest {
  @Test
  void demoPlaysTheScenarioPrintsTheTimelineAndExitsZero() {
    StringWriter out = new StringWriter();
    int code =
        Main.execute(
            new PrintWriter(out, true),
            new PrintWriter(new StringWriter(), true),
            "demo",
            "--time-scale",
            "120");
    String text = out.toString();
    assertThat(code).as(text).isZero();
    assertThat(text)
        .contains("Kafka broker (embedded KRaft)")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000001  Scheduled   Freeze")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000002  Scheduled   Reboot     User")
        .contains("--> signed approval")
        .contains("approval result: accepted, IMDS 200")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000002  Started     Reboot     User")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000002  Completed   Reboot     User")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000003  Canceled    Redeploy")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000004  Started     Reboot")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000004  Completed   Reboot")
        .contains("demo done in")
        .contains("approval round trip: command sent -> result envelope read back")
        .contains("StartRequests received by IMDS: 1");
    assertThat(text).doesNotContain("8A3F1C2E-5B4D-4E6F-9A1B-000000000004  Scheduled");
  }

  @Test
  void withJsonStandardOutputHoldsOnlyEnvelopesAndTheSummaryGoesToStandardError() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Main.execute(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            "demo",
            "--json",
            "--time-scale",
            "120");
    assertThat(code).as(err.toString()).isZero();
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    java.util.List<String> lines = out.toString().lines().toList();
    assertThat(lines).isNotEmpty();
    for (String line : lines) {
      assertThat(json.readTree(line).path("specversion").asText()).as(line).isEqualTo("1.0");
    }
    assertThat(err.toString()).contains("demo done in").contains("approval round trip");
  }
}
