package dev.sebridge.app;

import dev.sebridge.agent.Agent;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code sebridge run}: the agent, until SIGTERM or SIGINT (or any JVM shutdown); then it flushes
 * and exits 0. An agent that fails to start is closed, so nothing it had taken stays held.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = "Runs the agent until SIGTERM/SIGINT.")
final class RunCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  @Mixin ConfigOptions options = new ConfigOptions();

  @Override
  public Integer call() throws Exception {
    Configuration config = options.load(System.getenv());
    LogFormat.apply(config.get(CoreKeys.LOG_FORMAT));
    Signals.Termination termination =
        Signals.install(config.get(CoreKeys.SHUTDOWN_TIMEOUT).plus(Duration.ofSeconds(5)));
    try {
      Agent agent = Agent.builder(config).build();
      try {
        agent.start();
        LOG.info("{} received: flushing and stopping", termination.await());
      } finally {
        agent.close();
      }
    } finally {
      termination.stopped();
    }
    return 0;
  }
}
