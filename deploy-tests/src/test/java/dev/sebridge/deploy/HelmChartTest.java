package dev.sebridge.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Helm chart, linted and rendered by Helm itself (helm-java embeds Helm's Go library), the
 * rendered manifests checked for what the chart promises (docs/deploy.md), and the rendered
 * configuration checked by the built {@code sebridge check-config}.
 */
class HelmChartTest {
  static final Path CHART = Path.of("..", "deploy", "helm", "sebridge");
  static final Path SEBRIDGE = Path.of("..", "bridge-app", "target", "dist", "bin", "sebridge");
  static final ObjectMapper YAML = new YAMLMapper();

  @TempDir Path dir;

  /** The rendered documents by kind. */
  static Map<String, JsonNode> render(UnaryOperator<TemplateCommand> values) throws IOException {
    String out = values.apply(new Helm(CHART).template().withName("sebridge")).call();
    Map<String, JsonNode> byKind = new HashMap<>();
    try (var it = YAML.readerFor(JsonNode.class).readValues(new YAMLFactory().createParser(out))) {
      while (it.hasNext()) {
        JsonNode doc = (JsonNode) it.next();
        if (doc != null && doc.has("kind")) {
          assertThat(byKind.put(doc.get("kind").asText(), doc))
              .as("one %s", doc.get("kind"))
              .isNull();
        }
      }
    }
    return byKind;
  }

  static JsonNode container(Map<String, JsonNode> docs) {
    return docs.get("DaemonSet").at("/spec/template/spec/containers/0");
  }

  @Test
  void helmLintsTheChartStrictly() {
    LintResult lint = new Helm(CHART).lint().strict().call();
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
  }

  @Test
  void theDaemonSetIsHardenedReachesImdsAndIsScraped() throws IOException {
    Map<String, JsonNode> docs = render(t -> t);
    assertThat(docs).containsOnlyKeys("DaemonSet", "ConfigMap", "ServiceAccount");
    JsonNode pod = docs.get("DaemonSet").at("/spec/template");
    JsonNode spec = pod.get("spec");
    // IMDS from the node's network namespace, with cluster DNS still working.
    assertThat(spec.get("hostNetwork").asBoolean()).isTrue();
    assertThat(spec.get("dnsPolicy").asText()).isEqualTo("ClusterFirstWithHostNet");
    assertThat(spec.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(spec.at("/securityContext/runAsUser").asInt()).isEqualTo(65532);
    assertThat(spec.at("/securityContext/seccompProfile/type").asText())
        .isEqualTo("RuntimeDefault");
    assertThat(spec.get("automountServiceAccountToken").asBoolean()).isFalse();
    JsonNode c = container(docs);
    assertThat(c.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(c.at("/securityContext/allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(c.at("/securityContext/capabilities/drop/0").asText()).isEqualTo("ALL");
    assertThat(c.at("/resources/requests/memory").asText()).isNotEmpty();
    assertThat(c.at("/resources/limits/memory").asText()).isNotEmpty();
    assertThat(c.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(c.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
    assertThat(c.at("/ports/0/containerPort").asInt()).isEqualTo(9464);
    List<String> args = new ArrayList<>();
    c.get("args").forEach(a -> args.add(a.asText()));
    assertThat(args)
        .containsSubsequence("--config", "/etc/sebridge/sebridge.yaml")
        .contains("state.dir=/var/lib/sebridge", "http.port=9464", "http.bind-address=0.0.0.0");
    List<String> mounts = new ArrayList<>();
    c.get("volumeMounts").forEach(m -> mounts.add(m.get("mountPath").asText()));
    assertThat(mounts).containsExactlyInAnyOrder("/etc/sebridge", "/var/lib/sebridge", "/tmp");
    assertThat(pod.at("/metadata/annotations/prometheus.io~1scrape").asText()).isEqualTo("true");
    assertThat(pod.at("/metadata/annotations/prometheus.io~1port").asText()).isEqualTo("9464");
    assertThat(pod.at("/metadata/annotations/checksum~1config").asText()).hasSize(64);
    assertThat(docs.get("DaemonSet").at("/spec/template/spec/volumes/1/hostPath/path").asText())
        .isEqualTo("/var/lib/sebridge");
  }

  @Test
  void aConfigurationChangeRollsThePods() throws IOException {
    String before =
        render(t -> t)
            .get("DaemonSet")
            .at("/spec/template/metadata/annotations/checksum~1config")
            .asText();
    String after =
        render(t -> t.set("config.sink.kafka.topic", "other"))
            .get("DaemonSet")
            .at("/spec/template/metadata/annotations/checksum~1config")
            .asText();
    assertThat(after).isNotEqualTo(before);
  }

  @Test
  void workloadIdentityAndSecretsComeFromKubernetesNotTheChart() throws IOException {
    Map<String, JsonNode> docs =
        render(
            t ->
                t.set("workloadIdentity.enabled", "true")
                    .set("workloadIdentity.clientId", "7d1f3c2a-1111-4222-8333-944445555666")
                    .set("secretEnv[0].name", "SEBRIDGE_SINK_EVENTHUBS_CONNECTION_STRING")
                    .set("secretEnv[0].secretName", "sebridge-eventhubs")
                    .set("secretEnv[0].key", "connection-string")
                    .set("hostNetwork", "false"));
    assertThat(
            docs.get("DaemonSet")
                .at("/spec/template/metadata/labels/azure.workload.identity~1use")
                .asText())
        .isEqualTo("true");
    assertThat(
            docs.get("ServiceAccount")
                .at("/metadata/annotations/azure.workload.identity~1client-id")
                .asText())
        .isEqualTo("7d1f3c2a-1111-4222-8333-944445555666");
    JsonNode env = container(docs).get("env").get(0);
    assertThat(env.get("name").asText()).isEqualTo("SEBRIDGE_SINK_EVENTHUBS_CONNECTION_STRING");
    assertThat(env.at("/valueFrom/secretKeyRef/name").asText()).isEqualTo("sebridge-eventhubs");
    assertThat(docs.get("ConfigMap").toString()).doesNotContain("SharedAccessKey");
    assertThat(docs.get("DaemonSet").at("/spec/template/spec/dnsPolicy").asText())
        .isEqualTo("ClusterFirst");
    // Workload identity without a client id is refused when rendering.
    assertThatThrownBy(() -> render(t -> t.set("workloadIdentity.enabled", "true")))
        .hasMessageContaining("workloadIdentity.clientId is required");
  }

  /** What the ConfigMap mounts as /etc/sebridge/sebridge.yaml passes the agent's own check. */
  @Test
  void theRenderedConfigurationPassesSebridgeCheckConfig() throws Exception {
    assertThat(SEBRIDGE)
        .as(
            "the distribution (bridge-app/target/dist) is built in the package phase: ./mvnw verify")
        .exists();
    for (UnaryOperator<TemplateCommand> values :
        List.<UnaryOperator<TemplateCommand>>of(
            t -> t,
            t ->
                t.set("config.sinks", "eventhubs")
                    .set("config.sink.eventhubs.namespace", "myns.servicebus.windows.net")
                    .set("config.sink.eventhubs.name", "scheduled-events")
                    .set("config.sink.eventhubs.credential", "workload-identity"))) {
      String yaml = render(values).get("ConfigMap").at("/data/sebridge.yaml").asText();
      Path file = dir.resolve("sebridge.yaml");
      Files.writeString(file, yaml, StandardCharsets.UTF_8);
      Process p =
          new ProcessBuilder("sh", SEBRIDGE.toString(), "check-config", "--config", file.toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("%s%n%s", yaml, out).isZero();
    }
    // And a broken one is caught the same way (exit 2, naming the key).
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(
        bad,
        render(t -> t.set("config.sinks", "eventhubs"))
            .get("ConfigMap")
            .at("/data/sebridge.yaml")
            .asText());
    Process p =
        new ProcessBuilder("sh", SEBRIDGE.toString(), "check-config", "--config", bad.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).contains("sink.eventhubs.namespace");
  }
}
