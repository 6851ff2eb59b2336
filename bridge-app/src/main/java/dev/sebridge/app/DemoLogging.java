package dev.sebridge.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.util.List;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's quiet logging: WARN, and ERROR for the embedded broker. Logback's levels are set on
 * its {@link LoggerContext}, which SLF4J gives only once it has finished initialising: while
 * another thread initialises it, SLF4J hands out stand-ins (a {@code SubstituteLoggerFactory}),
 * which a cast to Logback's logger turned into a {@code ClassCastException} (a test running the
 * demo while another test class started its logging, CI of 2026-11-26).
 */
final class DemoLogging {
  private DemoLogging() {}

  /** Quiets the demo's logging; false when the logging is not Logback's (nothing changed). */
  static boolean quiet() {
    return quiet(initialised());
  }

  static boolean quiet(ILoggerFactory factory) {
    if (!(factory instanceof LoggerContext context)) {
      return false;
    }
    context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
    for (String noisy :
        List.of(
            "org.apache.kafka",
            "kafka",
            "state.change.logger",
            "org.eclipse.jetty.util.thread.QueuedThreadPool")) {
      context.getLogger(noisy).setLevel(Level.ERROR);
    }
    return true;
  }

  /**
   * SLF4J's factory once its initialisation is over. SLF4J initialises while holding {@code
   * LoggerFactory}'s monitor and answers stand-ins to any other thread meanwhile: taking that
   * monitor waits for it to finish (nothing to wait for once initialised).
   */
  static ILoggerFactory initialised() {
    synchronized (LoggerFactory.class) {
      return LoggerFactory.getILoggerFactory();
    }
  }
}
