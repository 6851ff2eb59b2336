package dev.sebridge.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthEndpointTest {
  /** Defect 7: the reasons are JSON strings whatever characters they hold. */
  @Test
  void readinessReasonsAreValidJsonWhateverTheyContain() throws Exception {
    String reason = "sink \"kafka\" failing: C:\\state\nnext line \u0001 \u2028";
    try (HealthEndpoint http =
        new HealthEndpoint("127.0.0.1", 0, () -> List.of(reason, "second"), () -> "")) {
      int[] status = new int[1];
      JsonNode body = new ObjectMapper().readTree(AgentTest.get(http.port(), "/readyz", status));
      assertThat(status[0]).isEqualTo(503);
      assertThat(body.get("status").asText()).isEqualTo("NOT_READY");
      assertThat(body.get("reasons").get(0).asText()).isEqualTo(reason);
      assertThat(body.get("reasons").get(1).asText()).isEqualTo("second");
    }
    try (HealthEndpoint http = new HealthEndpoint("127.0.0.1", 0, List::of, () -> "")) {
      int[] status = new int[1];
      JsonNode body = new ObjectMapper().readTree(AgentTest.get(http.port(), "/readyz", status));
      assertThat(status[0]).isEqualTo(200);
      assertThat(body.get("status").asText()).isEqualTo("READY");
    }
  }
}
