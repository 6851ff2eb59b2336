package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@code sebridge demo --fleet} does what the README says, end to end, on this machine. */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class FleetDemoTest {
  @Test
  void theFleetDemoShowsTheFleetApprovesFourVmsAndShowsTheCompletions() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Main.execute(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            "demo",
            "--fleet",
            "--timeout",
            "120");
    String o = out.toString();
    assertThat(code).as(o + err).isZero();
    assertThat(o)
        .contains("24 VMs in zones 1-3")
        .contains("$ sebridge fleet events --open")
        .containsPattern("Reboot +Platform .* 12 +scheduled 12 +1:4 2:4 3:4")
        .containsPattern("Freeze +Platform .* 3 +scheduled 3")
        .containsPattern("Redeploy +User .* 1 +scheduled 1")
        .contains("4 command(s) for event");
    assertThat(o.split("accepted +accepted", -1)).hasSize(5);
    assertThat(o).containsPattern("Reboot +Platform .* 12 +completed 12");
  }
}
