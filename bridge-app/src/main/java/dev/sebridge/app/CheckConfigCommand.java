package dev.sebridge.app;

import dev.sebridge.command.CommandSourceCatalog;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.KeyCatalog;
import dev.sebridge.sink.SinkCatalog;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code sebridge check-config}: validates, lists every problem, exits 2 if there is one. */
@Command(
    name = "check-config",
    mixinStandardHelpOptions = true,
    description = "Validates the configuration; lists every problem and exits 2 if there is one.")
final class CheckConfigCommand implements Callable<Integer> {
  @Mixin ConfigOptions options = new ConfigOptions();
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    Configuration config = options.load(System.getenv());
    KeyCatalog catalog = ConfigOptions.catalog(SinkCatalog.discover());
    var out = spec.commandLine().getOut();
    out.println("configuration is valid; keys set:");
    config.describe(catalog).forEach((k, v) -> out.println("  " + k + " = " + v));
    CommandSourceCatalog.discover()
        .selected(config)
        .ifPresent(p -> p.advice(config).forEach(a -> out.println("note: " + a)));
    return 0;
  }
}
