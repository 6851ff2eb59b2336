package dev.sebridge.app;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.KeyCatalog;
import dev.sebridge.sink.SinkCatalog;

/** Renders {@code docs/configuration.md} from the key definitions (a test keeps it current). */
final class ConfigReference {
  private ConfigReference() {}

  static String markdown() {
    KeyCatalog catalog = ConfigOptions.catalog(SinkCatalog.discover());
    StringBuilder b = new StringBuilder();
    b.append("# Configuration reference\n\n")
        .append(
            "Generated from the key definitions in the code (`CoreKeys` and each sink's provider);")
        .append(" `ConfigReferenceTest` fails when this file is out of date.\n\n")
        .append(
            "Sources, in increasing precedence: the file given with `--config` (YAML, nested or dotted")
        .append(
            " keys, or `.properties`), environment variables (`SEBRIDGE_` + the key upper-cased with")
        .append(" `.` and `-` as `_`, e.g. `SEBRIDGE_IMDS_POLL_INTERVAL`), and `--set key=value`.")
        .append(
            " Durations are written `250ms`, `1s`, `5m`, `2h` or ISO-8601 (`PT1S`). Unknown keys are")
        .append(
            " errors. `sebridge check-config` lists every problem; `sebridge run` exits 2 on any.\n\n")
        .append("| key | type | default | meaning |\n|---|---|---|---|\n");
    table(b, catalog.keys());
    b.append("\n## Fleet service (`sebridge fleet serve`)\n\n")
        .append(
            "Read the same way (`--config`, `SEBRIDGE_FLEET_*` environment variables, `--set`);")
        .append(" any problem exits 2 naming the key. See docs/fleet.md.\n\n")
        .append("| key | type | default | meaning |\n|---|---|---|---|\n");
    table(b, dev.sebridge.fleet.FleetKeys.all());
    return b.toString();
  }

  private static void table(StringBuilder b, java.util.List<ConfigKey<?>> keys) {
    for (ConfigKey<?> k : keys) {
      String def = k.defaultDescription();
      if (k.required()) {
        def = "required when enabled";
      }
      b.append("| `")
          .append(k.name())
          .append("` | ")
          .append(k.type().name())
          .append(" | ")
          .append(def.equals("-") ? "-" : "`" + def + "`")
          .append(" | ")
          .append(k.doc().replace("|", "\\|"))
          .append(k.secret() ? " (secret: never logged)" : "")
          .append(" |\n");
    }
  }
}
