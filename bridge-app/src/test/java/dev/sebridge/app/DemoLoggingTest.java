package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.SubstituteLoggerFactory;

/**
 * The demo quiets Logback through its context, and only once SLF4J has finished initialising: a
 * stand-in factory (SLF4J's answer to a thread that asks while another initialises) changes nothing
 * and throws nothing; and the demo waits for the initialising thread, held here by a latch.
 */
class DemoLoggingTest {
  @Test
  void aStandInFactoryChangesNothingAndThrowsNothing() {
    assertThat(DemoLogging.quiet(new SubstituteLoggerFactory())).isFalse();
  }

  @Test
  void logbacksLevelsAreSetOnItsContext() {
    LoggerContext context = (LoggerContext) DemoLogging.initialised();
    Level root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel();
    Level kafka = context.getLogger("org.apache.kafka").getLevel();
    try {
      assertThat(DemoLogging.quiet(context)).isTrue();
      assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel())
          .isEqualTo(Level.WARN);
      assertThat(context.getLogger("org.apache.kafka").getLevel()).isEqualTo(Level.ERROR);
    } finally {
      context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(root);
      context.getLogger("org.apache.kafka").setLevel(kafka);
    }
  }

  @Test
  void itWaitsForTheThreadThatInitialisesSlf4j() throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // SLF4J initialises holding LoggerFactory's monitor: a thread that holds it stands in for it.
    Thread initialising =
        new Thread(
            () -> {
              synchronized (LoggerFactory.class) {
                held.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    initialising.start();
    assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
    AtomicReference<Thread> asking = new AtomicReference<>();
    CompletableFuture<ILoggerFactory> factory =
        CompletableFuture.supplyAsync(
            () -> {
              asking.set(Thread.currentThread());
              return DemoLogging.initialised();
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> asking.get() != null && asking.get().getState() == Thread.State.BLOCKED);
    assertThat(factory).isNotDone();
    release.countDown();
    assertThat(factory.get(10, TimeUnit.SECONDS)).isInstanceOf(LoggerContext.class);
    initialising.join();
  }
}
