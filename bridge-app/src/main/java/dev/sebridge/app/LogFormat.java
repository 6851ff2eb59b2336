package dev.sebridge.app;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.LoggerFactory;

/** Switches the console log to JSON lines ({@code log.format=json}); text is the default. */
final class LogFormat {
  private LogFormat() {}

  static void apply(String format) {
    if (!"json".equals(format)
        || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
      return;
    }
    Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(ctx);
    encoder.setWithFormattedMessage(true);
    encoder.setWithMessage(false);
    encoder.setWithArguments(false);
    encoder.start();
    ConsoleAppender<ILoggingEvent> json = new ConsoleAppender<>();
    json.setContext(ctx);
    json.setName("JSON");
    json.setTarget("System.err");
    json.setEncoder(encoder);
    json.start();
    root.detachAndStopAllAppenders();
    root.addAppender(json);
  }
}
