package dev.sebridge.agent;

import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.outbox.EnvelopePublisher;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.state.StateDirectory;
import java.time.Clock;

/**
 * What the agent's components share: read-only configuration and clock, the state directory (each
 * component owns its own files in it, see docs/architecture.md), how envelopes are made and where
 * they go, the metrics, and the crash points of the crash-point campaign.
 */
record AgentContext(
    Configuration config,
    Clock clock,
    StateDirectory state,
    EnvelopeFactory envelopes,
    EnvelopePublisher publisher,
    AgentMetrics metrics,
    CrashPoints crashPoints) {}
