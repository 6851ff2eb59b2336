package dev.sebridge.app;

import dev.sebridge.schemas.SchemaKind;
import dev.sebridge.schemas.Schemas;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sebridge schema envelope|command|result|heartbeat}: prints a JSON Schema. */
@Command(
    name = "schema",
    mixinStandardHelpOptions = true,
    description =
        "Prints the JSON Schema (draft 2020-12) of: envelope, command, result, heartbeat.")
final class SchemaCommand implements Callable<Integer> {
  @Parameters(
      index = "0",
      paramLabel = "KIND",
      description = "envelope, command, result or heartbeat")
  String kind;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    var k = SchemaKind.ofCliName(kind);
    if (k.isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "sebridge schema: unknown kind '"
                  + kind
                  + "' (one of: "
                  + Arrays.stream(SchemaKind.values())
                      .map(SchemaKind::cliName)
                      .collect(Collectors.joining(", "))
                  + ")");
      return Main.EXIT_CONFIG;
    }
    spec.commandLine().getOut().print(Schemas.text(k.get()));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
