package dev.sebridge.simulator;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Builds an {@link ImdsSimulator}: {@code ImdsSimulator.builder()...build().start()}. */
public final class SimulatorBuilder {
  Clock clock = Clock.systemUTC();
  double timeScale = 1.0;
  Duration firstCallDelay = Duration.ZERO;
  Duration approvalStartDelay = Duration.ZERO;
  final List<SimVm> vms = new ArrayList<>();
  InetAddress bindAddress = InetAddress.getLoopbackAddress();
  int port;
  boolean computeMetadata = true;

  public SimulatorBuilder clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  /** Simulated seconds per real second (60 = one simulated minute per real second). */
  public SimulatorBuilder timeScale(double scale) {
    if (!(scale > 0)) {
      throw new IllegalArgumentException("time scale must be > 0");
    }
    this.timeScale = scale;
    return this;
  }

  /** Delay of the very first scheduled-events answer (IMDS may take 2 minutes to enable). */
  public SimulatorBuilder firstCallDelay(Duration d) {
    this.firstCallDelay = d;
    return this;
  }

  /** Real delay between an approval and the event starting. */
  public SimulatorBuilder approvalStartDelay(Duration d) {
    this.approvalStartDelay = d;
    return this;
  }

  public SimulatorBuilder vm(SimVm vm) {
    this.vms.add(vm);
    return this;
  }

  public SimulatorBuilder vms(List<SimVm> vms) {
    this.vms.addAll(vms);
    return this;
  }

  public SimulatorBuilder port(int port) {
    this.port = port;
    return this;
  }

  /**
   * Answers {@code /metadata/instance/compute} with 404, as Microsoft's scheduled-events mock
   * server does (it serves no compute metadata).
   */
  public SimulatorBuilder withoutComputeMetadata() {
    this.computeMetadata = false;
    return this;
  }

  public SimulatorBuilder bindAddress(InetAddress address) {
    this.bindAddress = address;
    return this;
  }

  public ImdsSimulator build() {
    try {
      return new ImdsSimulator(this);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot bind the simulator", e);
    }
  }
}
