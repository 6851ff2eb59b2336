package dev.sebridge.validators;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet API's published contract, docs/fleet-openapi.yaml, passes an independent OpenAPI
 * linter, Redocly's CLI with its {@code recommended} rules: no error and no warning. The service
 * validates request bodies against the same document (RequestContract), so a document that another
 * tool reads differently is a contract we do not keep.
 */
class OpenApiLintTest {
  static final Path DOCUMENT = NodeTools.REPO.resolve("docs/fleet-openapi.yaml");
  static final String CLI = "node_modules/@redocly/cli/bin/cli.js";

  /** A problem line of the stylish format: {@code 12:5 warning rule-id message}. */
  static final Pattern PROBLEM = Pattern.compile("^\\s+\\d+:\\d+\\s+(error|warning)\\s+(\\S+)");

  @Test
  void thePublishedDocumentHasNoErrorAndNoWarning() throws Exception {
    NodeTools.Result r = lint(DOCUMENT);
    assertThat(problems(r)).as(r.output()).isEmpty();
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("validated");
  }

  /**
   * The linter sees what the issue saw: an unquoted description that breaks the YAML, and so on.
   */
  @Test
  void aDocumentWithTheOldMistakesFailsTheLint(@TempDir Path dir) throws Exception {
    String doc = Files.readString(DOCUMENT);
    String broken =
        doc.replaceFirst("\\n      operationId: listEvents", "")
            .replace(
                "description: \"only these VMs are counted, and events without any are left out\"",
                "description: only these VMs are counted, and events without any are left out");
    assertThat(broken).isNotEqualTo(doc);
    Path copy = dir.resolve("fleet-openapi.yaml");
    Files.writeString(copy, broken);
    NodeTools.Result r = lint(copy);
    assertThat(r.exit()).as(r.output()).isNotZero();
    assertThat(problems(r)).as(r.output()).contains("operation-operationId", "struct");
  }

  private static NodeTools.Result lint(Path document) throws Exception {
    return NodeTools.node(
        CLI,
        List.of("lint", document.toString(), "--extends", "recommended", "--format", "stylish"));
  }

  private static List<String> problems(NodeTools.Result r) {
    return r.output()
        .lines()
        .map(PROBLEM::matcher)
        .filter(java.util.regex.Matcher::find)
        .map(m -> m.group(2))
        .toList();
  }
}
