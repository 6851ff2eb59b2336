package dev.sebridge.app.fleet;

import dev.sebridge.app.Signals;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.FleetKeys;
import dev.sebridge.fleet.FleetService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sebridge fleet serve}: runs the fleet service until SIGTERM or SIGINT. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Runs the fleet service (Kafka Streams and the API) until SIGTERM/SIGINT.")
final class FleetServeCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(FleetServeCommand.class);

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Configuration file (YAML, or .properties).")
  Path file;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = "Sets a key; wins over the file and SEBRIDGE_FLEET_* environment variables.")
  List<String> sets = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    Configuration config = FleetKeys.load(file, System.getenv(), sets);
    Signals.Termination termination = Signals.install(Duration.ofSeconds(40));
    try (FleetService service = FleetService.builder(config).build()) {
      service.start();
      LOG.info("{} received: stopping the fleet service", termination.await());
    } finally {
      termination.stopped();
    }
    return 0;
  }
}
