package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Runs the README's main-job command ({@code sebridge demo}), faster. */
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
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000001  Scheduled   Freeze")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000002  Scheduled   Reboot     User")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000003  Canceled    Redeploy")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000004  Started     Reboot")
        .contains("8A3F1C2E-5B4D-4E6F-9A1B-000000000004  Completed   Reboot")
        .contains("demo done in")
        .contains("dev.sebridge.scheduledevent.canceled.v1");
    assertThat(text).doesNotContain("8A3F1C2E-5B4D-4E6F-9A1B-000000000004  Scheduled");
  }
}
