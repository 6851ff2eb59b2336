package dev.sebridge.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host name (the VM name when IMDS serves no compute metadata): a host the name service does
 * not resolve still has one. Before, it was "unknown", and an agent without compute metadata waited
 * for ever for a name.
 */
class AgentInfoTest {
  @TempDir Path dir;

  static final Callable<String> UNRESOLVED =
      () -> {
        throw new UnknownHostException("vm-7: Name or service not known");
      };

  @Test
  void aHostTheNameServiceDoesNotResolveIsNamedByItsKernel() throws Exception {
    Path kernel = Files.writeString(dir.resolve("hostname"), "vm-7\n");
    assertThat(AgentInfo.localHostName(Map.of(), UNRESOLVED, kernel)).isEqualTo("vm-7");
  }

  @Test
  void theEnvironmentThenTheKernelThenTheNameServiceThenWindows() throws Exception {
    Path kernel = Files.writeString(dir.resolve("hostname"), "from-kernel\n");
    Path none = dir.resolve("absent");
    Callable<String> never =
        () -> {
          throw new AssertionError("the name service is not asked while the kernel says");
        };
    assertThat(AgentInfo.localHostName(Map.of("HOSTNAME", "from-env\n"), never, kernel))
        .isEqualTo("from-env");
    assertThat(AgentInfo.localHostName(Map.of("HOSTNAME", " "), never, kernel))
        .isEqualTo("from-kernel");
    assertThat(AgentInfo.localHostName(Map.of(), () -> "resolved", none)).isEqualTo("resolved");
    assertThat(AgentInfo.localHostName(Map.of("COMPUTERNAME", "WIN-1"), UNRESOLVED, none))
        .isEqualTo("WIN-1");
    assertThat(AgentInfo.localHostName(Map.of(), UNRESOLVED, none)).isEqualTo("unknown");
  }
}
