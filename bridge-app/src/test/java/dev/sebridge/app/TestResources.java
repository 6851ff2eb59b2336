package dev.sebridge.app;

/**
 * Shared resources of the end-to-end tests, for JUnit's resource locks. Test classes run
 * concurrently; a class whose checks assume a quiet machine (restart times, timed outages) takes
 * {@link #CPU} exclusively, a class that starts agent processes or brokers takes it shared, and a
 * class that mostly waits (a five-minute outage) takes nothing and overlaps everything.
 */
final class TestResources {
  static final String CPU = "sebridge-cpu";

  private TestResources() {}
}
