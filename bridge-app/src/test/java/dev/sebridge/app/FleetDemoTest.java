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
  void
      theFleetDemoRollsOutTheRebootsInWavesAndThePoliciesApproveTheRestAndAzureTheVmsWithoutAnAgent() {
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
        .contains("$ sebridge fleet events --open --type Reboot")
        .containsPattern("Reboot +Platform .* 1 +scheduled 1 +1:1")
        .contains("12 event(s), at most 2 unavailable per zone")
        .containsPattern("wave 1 at \\S+: ")
        .containsPattern("wave 2 at \\S+: ")
        .containsPattern("rollout \\S+ completed: 12 back")
        .contains("2 command(s) for event")
        .containsPattern("Freeze +Platform .* 3 +completed 3")
        .containsPattern("Redeploy +User .* 1 +completed 1")
        // the VMs without an agent: coverage, and a rollout through the Maintenance API
        .contains("24 VMs; 22 with a live agent, 0 silent, 2 without an agent")
        .contains("2 event(s), at most 1 unavailable per zone")
        .containsPattern("running +sre-oncall@demo +2 completed +1 ");
    assertThat(o.split("azure completed", -1)).as("Azure's word on both").hasSize(3);
    assertThat(o.split("accepted +accepted", -1)).hasSize(3);
    // never more than 2 VMs of a zone in one wave (each wave starts only when the last is back)
    for (String wave : o.lines().filter(l -> l.trim().startsWith("wave ")).toList()) {
      assertThat(wave).as("every VM of a wave with its group").doesNotContain("(-)");
      for (String zone : java.util.List.of("zone=1", "zone=2", "zone=3")) {
        assertThat(wave.split(java.util.regex.Pattern.quote(zone), -1).length - 1)
            .as(wave)
            .isLessThanOrEqualTo(2);
      }
    }
  }
}
