package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} must match the key definitions. To regenerate: {@code ./mvnw -pl
 * bridge-app -am test -Dtest=ConfigReferenceTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsebridge.write-docs=true}.
 */
class ConfigReferenceTest {
  @Test
  void docsMatchTheKeyDefinitions() throws Exception {
    Path doc =
        Path.of(System.getProperty("basedir", ".")).resolve("../docs/configuration.md").normalize();
    String expected = ConfigReference.markdown();
    if (Boolean.getBoolean("sebridge.write-docs")) {
      Files.writeString(doc, expected, StandardCharsets.UTF_8);
    }
    assertThat(Files.exists(doc))
        .as("%s is missing; regenerate it (see this test's Javadoc)", doc)
        .isTrue();
    assertThat(Files.readString(doc, StandardCharsets.UTF_8))
        .as(
            "docs/configuration.md is out of date; regenerate it (see ConfigReferenceTest's Javadoc)")
        .isEqualTo(expected);
    assertThat(expected).contains("`imds.poll-interval`").contains("`sink.file.path`");
  }
}
