package dev.sebridge.fleet.streams;

/**
 * The topics a topology reads and writes: named {@code <prefix>-<name>} except the envelopes,
 * commands and approvals (audit) topics.
 *
 * @param centralEvents whether it reads Azure's central scheduled events ({@link
 *     FleetTopology#AGENTLESS_EVENTS}, fleet.central-events)
 * @param acknowledgements whether it writes orders to acknowledge events through Azure's
 *     Maintenance API ({@link FleetTopology#ACKNOWLEDGEMENTS}, fleet.acknowledge.enabled)
 */
public record Topics(
    String prefix,
    String envelopes,
    String commands,
    String approvals,
    boolean centralEvents,
    boolean acknowledgements) {
  /** Without Azure's central scheduled events. */
  public Topics(String prefix, String envelopes, String commands, String approvals) {
    this(prefix, envelopes, commands, approvals, false, false);
  }

  /** Without acknowledgements through Azure's Maintenance API. */
  public Topics(
      String prefix, String envelopes, String commands, String approvals, boolean centralEvents) {
    this(prefix, envelopes, commands, approvals, centralEvents, false);
  }

  public String of(String name) {
    return prefix + "-" + name;
  }
}
