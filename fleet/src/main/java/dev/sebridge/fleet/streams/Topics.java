package dev.sebridge.fleet.streams;

/**
 * The topics a topology reads and writes: named {@code <prefix>-<name>} except the envelopes,
 * commands and approvals (audit) topics.
 *
 * @param centralEvents whether it reads Azure's central scheduled events ({@link
 *     FleetTopology#AGENTLESS_EVENTS}, fleet.central-events)
 */
public record Topics(
    String prefix, String envelopes, String commands, String approvals, boolean centralEvents) {
  /** Without Azure's central scheduled events. */
  public Topics(String prefix, String envelopes, String commands, String approvals) {
    this(prefix, envelopes, commands, approvals, false);
  }

  public String of(String name) {
    return prefix + "-" + name;
  }
}
