package dev.sebridge.app;

import java.util.function.Consumer;

/**
 * SIGTERM and SIGINT handling. A JVM killed by SIGTERM exits 143 after its shutdown hooks; the
 * agent must flush and exit 0 instead, so it takes the signals itself ({@code sun.misc.Signal}, in
 * the jdk.unsupported module, the only JDK API for this).
 */
final class Signals {
  private Signals() {}

  @SuppressWarnings("restriction")
  static void onTermination(Consumer<String> handler) {
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), s -> handler.accept("SIG" + s.getName()));
      } catch (IllegalArgumentException e) {
        // Signal not available on this platform (e.g. TERM on some Windows JVMs): the shutdown
        // hook below still stops the agent cleanly.
      }
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> handler.accept("shutdown"), "sebridge-shutdown"));
  }
}
