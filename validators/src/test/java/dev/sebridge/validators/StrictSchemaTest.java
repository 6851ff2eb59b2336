package dev.sebridge.validators;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.schemas.SchemaKind;
import dev.sebridge.schemas.Schemas;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every released schema compiled by another implementation, Ajv (draft 2020-12) in strict mode with
 * formats asserted, as many consumers compile schemas; and every golden example judged by it as by
 * ours: valid ones pass, invalid ones fail (impossible date-times among them).
 */
class StrictSchemaTest {
  static final Path SCHEMAS = NodeTools.REPO.resolve("schemas/src/main/resources/schemas/v1");
  static final Path GOLDEN = NodeTools.REPO.resolve("schemas/src/test/resources/v1");

  @Test
  void everyReleasedSchemaCompilesStrictlyAndJudgesTheGoldenExamplesAsOursDoes() throws Exception {
    // Invalid for reasons beyond the schema (GoldenExamplesTest checks them): over 64 KiB, and a
    // dataschema that disagrees with data.schemaVersion.
    List<String> args =
        new ArrayList<>(
            List.of(
                "--skip",
                "oversized.json",
                "--skip",
                "schemaversion-disagrees-with-dataschema.json"));
    int schemas = 0;
    int definitions = 0; // the command's claims, compiled on their own
    for (var e : Schemas.RELEASED.entrySet()) {
      SchemaKind kind = e.getKey();
      for (String version : e.getValue()) {
        String name =
            kind.urn(version).substring("urn:sebridge:schema:".length()).replace(':', '-');
        Path schema = SCHEMAS.resolve(name + ".json");
        String golden = kind.cliName();
        add(args, schema, null, golden, version);
        if (kind == SchemaKind.COMMAND) {
          add(args, schema, "claims", "command-claims", version);
          definitions++;
        }
        schemas++;
      }
    }
    assertThat(schemas).isGreaterThanOrEqualTo(6);
    NodeTools.Result r = NodeTools.node("schema-check.js", args);
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output().lines().filter(l -> l.endsWith("compiles in strict mode")).count())
        .isEqualTo(schemas + definitions);
  }

  private static void add(List<String> args, Path schema, String def, String golden, String v) {
    args.add("--schema");
    args.add(schema.toString());
    if (def != null) {
      args.add("--def");
      args.add(def);
    }
    // examples are valid against their own version and every later one; invalid against their own
    for (String earlier : List.of("1.0", "1.1", "1.2")) {
      if (earlier.compareTo(v) <= 0) {
        args.add("--valid");
        args.add(GOLDEN.resolve(earlier).resolve(golden).resolve("valid").toString());
      }
    }
    args.add("--invalid");
    args.add(GOLDEN.resolve(v).resolve(golden).resolve("invalid").toString());
  }
}
