package dev.sebridge.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;

/**
 * The agent's logging, set up in code through logback's {@link Configurator} service instead of a
 * logback.xml: the XML configurator and the JDK's XML parser it needs are about 600 classes (3 MiB
 * of metaspace) that every VM would keep loaded for one file read at start.
 *
 * <p>Logs go to standard error (standard output belongs to the stdout sink); the root level is
 * {@code SEBRIDGE_LOG_LEVEL} (INFO by default). A logback file still wins when one is given: {@code
 * -Dlogback.configurationFile=...} in {@code JAVA_OPTS}.
 */
public final class LoggingConfigurator extends ContextAwareBase implements Configurator {
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{24} - %msg%n";

  /**
   * The Kafka clients log every failed connection attempt as a WARN, twice a second during a broker
   * outage, and the Azure SDK every failed call as an ERROR: sebridge reports a failing sink itself
   * (one WARN after publish.warn-after, one INFO when it delivers again), and a failing command
   * source likewise.
   */
  static final Map<String, Level> QUIET =
      Map.of(
          "org.apache.kafka", Level.ERROR,
          "kafka", Level.WARN,
          "state.change.logger", Level.WARN,
          "com.azure", Level.OFF,
          "com.microsoft.aad.msal4j", Level.OFF,
          // (the fleet's HTTP server: Jetty warns at every start that its thread pool's queue is
          // bounded, which it is on purpose: fleet JettyServer)
          "org.eclipse.jetty.util.thread.QueuedThreadPool", Level.ERROR);

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(System.getenv("SEBRIDGE_LOG_LEVEL"), Level.INFO));
    root.addAppender(stderr);
    QUIET.forEach((name, level) -> context.getLogger(name).setLevel(level));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
