package dev.sebridge.app;

import dev.sebridge.agent.Agent;
import dev.sebridge.config.Configuration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code sebridge run}: the agent, until SIGTERM or SIGINT; then it flushes and exits 0. */
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
    LogFormat.apply(config.get(dev.sebridge.config.CoreKeys.LOG_FORMAT));
    CountDownLatch stop = new CountDownLatch(1);
    Signals.onTermination(
        signal -> {
          LOG.info("{} received: flushing and stopping", signal);
          stop.countDown();
        });
    try (Agent agent = Agent.builder(config).build().start()) {
      stop.await();
    }
    return 0;
  }
}
