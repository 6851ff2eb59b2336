package dev.sebridge.spi;

import dev.sebridge.config.Configuration;
import java.nio.file.Path;
import java.time.Clock;

/**
 * What a sink gets at creation.
 *
 * @param config the whole agent configuration (read the sink's own keys)
 * @param stateDir the agent's state directory, for sinks that keep state of their own
 * @param clock the agent's clock
 */
public record SinkContext(Configuration config, Path stateDir, Clock clock) {}
