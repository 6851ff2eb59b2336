package dev.sebridge.fleet.model;

import dev.sebridge.fleet.agentless.AzureEventStatus;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The part of an approval that goes to Azure's Maintenance API instead of an agent: the VMs an
 * event lists that no live agent can approve it for ({@code fleet.acknowledge.enabled}). One
 * acknowledgement of the scheduled event releases it for every VM it lists, as an approval through
 * IMDS does; each VM named here gets its outcome in the request's view, under {@link #vmKey}.
 *
 * @param resourceId the scheduled event's ARM id, as Azure's central delivery gave it
 * @param vms the VM names Azure lists that no live agent reported the event for
 */
public record Acknowledgement(String resourceId, List<String> vms) {
  public Acknowledgement {
    vms = List.copyOf(vms);
  }

  /**
   * The key of a VM known by name only ({@code name:<name>}, lower case): in the ledger, and in a
   * request's view for a VM acknowledged for. No vmId has that form.
   */
  public static String vmKey(String name) {
    return "name:" + name.toLowerCase(Locale.ROOT);
  }

  /** Whether a VM key is one of a VM known by name only ({@link #vmKey}). */
  public static boolean byName(String key) {
    return key != null && key.startsWith("name:");
  }

  /**
   * What of an event's approval needs the Maintenance API: the VMs Azure lists (while Azure says
   * the event is Scheduled) that no VM with a live agent reported, or null when there are none, or
   * Azure has not delivered the event's ARM id.
   *
   * @param live whether the agent of a vmId is live (not silent)
   */
  public static Acknowledgement of(EventView e, Predicate<String> live) {
    CentralReport c = e.central();
    if (c == null
        || c.resourceId() == null
        || c.resourceId().isBlank()
        || c.status() != AzureEventStatus.SCHEDULED) {
      return null;
    }
    Set<String> covered = new HashSet<>();
    e.vms().values().stream()
        .filter(v -> v.name() != null && live.test(v.vmId()))
        .forEach(v -> covered.add(v.name().toLowerCase(Locale.ROOT)));
    Set<String> seen = new HashSet<>();
    List<String> vms =
        c.resources().stream()
            .filter(n -> n != null && !n.isBlank())
            .filter(n -> !covered.contains(n.toLowerCase(Locale.ROOT)))
            .filter(n -> seen.add(n.toLowerCase(Locale.ROOT)))
            .toList();
    return vms.isEmpty() ? null : new Acknowledgement(c.resourceId(), vms);
  }
}
