package dev.sebridge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.sink.SinkCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  static KeyCatalog catalog() {
    List<ConfigKey<?>> keys = new ArrayList<>(CoreKeys.all());
    keys.addAll(SinkCatalog.discover().configKeys());
    keys.add(
        ConfigKey.builder("sink.test.producer.*", ConfigType.STRING)
            .doc("pass-through for tests")
            .build());
    return new KeyCatalog(keys);
  }

  final ConfigLoader loader = new ConfigLoader(catalog());

  @Test
  void defaultsApplyWhenNothingIsSet() {
    Configuration c = loader.load(null, Map.of(), List.of());
    assertThat(c.get(CoreKeys.IMDS_POLL_INTERVAL)).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.get(CoreKeys.IMDS_API_VERSION)).isEqualTo("2020-07-01");
    assertThat(c.get(CoreKeys.SINKS)).containsExactly("stdout");
    assertThat(c.get(CoreKeys.HTTP_PORT)).isEqualTo(9464);
  }

  @Test
  void yamlThenEnvironmentThenSetInIncreasingPrecedence() throws Exception {
    Path f = dir.resolve("sebridge.yaml");
    Files.writeString(
        f,
        """
        imds:
          poll-interval: 2s
          api-version: 2019-08-01
        sinks: [file, stdout]
        sink:
          file:
            path: /tmp/a.jsonl
        """);
    Configuration c =
        loader.load(
            f,
            Map.of(
                "SEBRIDGE_IMDS_POLL_INTERVAL", "500ms", "SEBRIDGE_HTTP_PORT", "0", "PATH", "/bin"),
            List.of("http.port=9999"));
    assertThat(c.get(CoreKeys.IMDS_POLL_INTERVAL)).isEqualTo(Duration.ofMillis(500));
    assertThat(c.get(CoreKeys.IMDS_API_VERSION)).isEqualTo("2019-08-01");
    assertThat(c.get(CoreKeys.SINKS)).containsExactly("file", "stdout");
    assertThat(c.get(CoreKeys.HTTP_PORT)).isEqualTo(9999);
  }

  @Test
  void propertiesFilesWork() throws Exception {
    Path f = dir.resolve("sebridge.properties");
    Files.writeString(f, "imds.poll-interval = 750ms\nstate.dir=/srv/state\n");
    Configuration c = loader.load(f, Map.of(), List.of());
    assertThat(c.get(CoreKeys.IMDS_POLL_INTERVAL)).isEqualTo(Duration.ofMillis(750));
    assertThat(c.get(CoreKeys.STATE_DIR)).isEqualTo(Path.of("/srv/state"));
  }

  @Test
  void passThroughKeysComeFromEnvironmentToo() {
    Configuration c =
        loader.load(
            null,
            Map.of("SEBRIDGE_SINK_TEST_PRODUCER_SASL_MECHANISM", "OAUTHBEARER"),
            List.of("sink.test.producer.linger.ms=0"));
    ConfigKey<?> prefix = catalog().lookup("sink.test.producer.x").orElseThrow();
    assertThat(c.passthrough(prefix))
        .containsEntry("sasl.mechanism", "OAUTHBEARER")
        .containsEntry("linger.ms", "0");
  }

  @Test
  void everyProblemIsListedWithItsKey() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(
        f,
        "imds:\n  poll-interval: 100ms\n  endpoint: ftp://x\nhttp:\n  port: 70000\nimsd:\n  typo: 1\n");
    ConfigLoader.Result r =
        loader.read(f, Map.of(), List.of("novalue", "imds.request-timeout=soon"));
    assertThat(r.problems())
        .extracting(ConfigProblem::key)
        .containsExactlyInAnyOrder(
            "novalue",
            "imsd.typo",
            "imds.poll-interval",
            "imds.endpoint",
            "http.port",
            "imds.request-timeout");
    assertThat(r.problems().toString()).contains("below the minimum of 200ms");
    assertThatThrownBy(r::orThrow)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("imds.poll-interval");
  }

  /**
   * An empty vm.id (an environment variable set to nothing) would replace IMDS's vmId with ""; an
   * IMDS timeout of weeks overflowed the socket's and killed the poller. Both are problems naming
   * their key (the agent exits 2), not values taken.
   */
  @Test
  void anEmptyVmIdAndAnEndlessImdsTimeoutAreProblems() {
    ConfigLoader.Result r =
        loader.read(
            null,
            Map.of("SEBRIDGE_VM_ID", ""),
            List.of("vm.name= ", "imds.first-request-timeout=1000h", "imds.request-timeout=11m"));
    assertThat(r.problems())
        .extracting(ConfigProblem::key)
        .containsExactlyInAnyOrder(
            "vm.id", "vm.name", "imds.first-request-timeout", "imds.request-timeout");
    assertThat(r.problems().toString()).contains("must not be blank").contains("at most 10m");
    assertThat(loader.read(null, Map.of("SEBRIDGE_VM_ID", "vm-1\r"), List.of()).problems())
        .extracting(ConfigProblem::key)
        .containsExactly("vm.id"); // an env file's Windows line ending
    assertThat(
            loader
                .read(null, Map.of("SEBRIDGE_VM_ID", "vm-1"), List.of("imds.request-timeout=10m"))
                .problems())
        .isEmpty();
  }

  @Test
  void brokenYamlAndMissingFilesAreProblemsNotStackTraces() throws Exception {
    Path f = dir.resolve("broken.yaml");
    Files.writeString(f, "imds: [unclosed\n");
    assertThat(loader.read(f, Map.of(), List.of()).problems().get(0).message())
        .contains("not valid YAML");
    assertThat(
            loader
                .read(dir.resolve("missing.yaml"), Map.of(), List.of())
                .problems()
                .get(0)
                .message())
        .contains("cannot read");
  }

  @Test
  void sinkSelectionIsCheckedAgainstAvailableSinks() {
    SinkCatalog sinks = SinkCatalog.discover();
    Configuration c = loader.load(null, Map.of(), List.of("sinks=file,kafka,nope"));
    assertThat(sinks.problems(c))
        .extracting(ConfigProblem::toString)
        .containsExactlyInAnyOrder(
            "sinks: sink 'kafka' needs the sink-kafka module on the class path (available: file, stdout)",
            "sinks: unknown sink 'nope' (available: file, stdout)",
            "sink.file.path: is required");
  }

  @Test
  void durationsAndTypes() {
    assertThat(ConfigType.DURATION_TYPE.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(ConfigType.DURATION_TYPE.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(ConfigType.DURATION_TYPE.parse("PT2S")).isEqualTo(Duration.ofSeconds(2));
    assertThat(ConfigType.formatDuration(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(ConfigType.BOOLEAN.parse("yes")).isTrue();
    assertThatThrownBy(() -> ConfigType.BOOLEAN.parse("maybe"))
        .hasMessageContaining("not true or false");
    assertThatThrownBy(() -> ConfigType.DURATION_TYPE.parse("1 fortnight"))
        .hasMessageContaining("not a duration");
  }

  @Test
  void secretsAreMaskedWhenDescribed() {
    Configuration c =
        Configuration.of(
            Map.of(
                "sink.test.producer.sasl.jaas.config", "org.apache...password=\"hunter2\"",
                "imds.endpoint", "http://127.0.0.1:1"));
    Map<String, String> d = c.describe(catalog());
    assertThat(d.get("sink.test.producer.sasl.jaas.config")).isEqualTo("********");
    assertThat(d.get("imds.endpoint")).isEqualTo("http://127.0.0.1:1");
  }

  @Test
  void envNamesMapToKeys() {
    KeyCatalog k = catalog();
    assertThat(k.keyForEnv("SEBRIDGE_IMDS_POLL_INTERVAL")).hasValue("imds.poll-interval");
    assertThat(k.keyForEnv("SEBRIDGE_STATE_DIR")).hasValue("state.dir");
    assertThat(k.keyForEnv("SEBRIDGE_NOT_A_KEY")).isEmpty();
    assertThat(k.keyForEnv("HOME")).isEmpty();
  }
}
