package dev.sebridge.agent;

import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.imds.Imds;
import dev.sebridge.outbox.EnvelopePublisher;
import dev.sebridge.spi.EventSink;
import dev.sebridge.state.CrashPoints;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/** Builds an {@link Agent}: its configuration, and what tests replace. */
public final class AgentBuilder {
  final Configuration config;
  Clock clock = Clock.systemUTC();
  AgentInfo agentInfo = AgentInfo.current();
  final List<EventSink> extraSinks = new ArrayList<>();
  EnvelopePublisher publisher;
  Imds imds;
  CrashPoints crashPoints = CrashPoints.fromSystemProperties();

  AgentBuilder(Configuration config) {
    this.config = config;
  }

  public AgentBuilder clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  public AgentBuilder agentInfo(AgentInfo info) {
    this.agentInfo = info;
    return this;
  }

  /** A sink beside the configured ones (the demo's timeline printer, tests). */
  public AgentBuilder extraSink(EventSink sink) {
    this.extraSinks.add(sink);
    return this;
  }

  /** Replaces the outbox (tests). */
  public AgentBuilder publisher(EnvelopePublisher publisher) {
    this.publisher = publisher;
    return this;
  }

  /** Replaces the IMDS client (tests: an in-memory IMDS). */
  public AgentBuilder imds(Imds imds) {
    this.imds = imds;
    return this;
  }

  /** Where to crash on purpose (tests); by default from {@value CrashPoints#PROPERTY}. */
  public AgentBuilder crashPoints(CrashPoints crashPoints) {
    this.crashPoints = crashPoints;
    return this;
  }

  /** Builds the agent; a failure releases whatever was already taken (sinks, state.dir). */
  public Agent build() {
    return new Agent(this);
  }
}
