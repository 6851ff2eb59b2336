package dev.sebridge.fleet.inventory;

import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmEventState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The VMs Azure's inventory lists, kept change by change for the rollouts task's view index: whom
 * Azure's central word on an event (which names VMs, not vmIds) is about, and where a VM an event
 * lists by name only is ({@link #placed}): its vmId and its group attributes, so the ledger can
 * count a VM without an agent in its own group. One entry per VM the inventory lists; removed with
 * it.
 */
public final class InventoryPlaces {
  /**
   * What the index keeps of an inventory record.
   *
   * @param name the VM's name, lower case
   * @param scope {@code /subscriptions/<id>/resourcegroups/<name>} of its ARM id, lower case, or
   *     null when its ARM id has none
   */
  public record Place(
      String name,
      String scope,
      String zone,
      String scaleSet,
      String resourceGroup,
      String location) {
    /** What the index keeps of a record: null for one without a name (an event cannot list it). */
    public static Place of(InventoryVm v) {
      if (v == null || v.name() == null || v.name().isBlank()) {
        return null;
      }
      return new Place(
          v.name().toLowerCase(Locale.ROOT),
          InventoryPlaces.scope(v.resourceId()),
          v.zone(),
          v.scaleSet(),
          v.resourceGroup(),
          v.location());
    }

    public String attribute(String attribute) {
      return switch (attribute) {
        case "zone" -> zone;
        case "scaleSet" -> scaleSet;
        case "resourceGroup" -> resourceGroup;
        case "location" -> location;
        default -> null;
      };
    }
  }

  private final Map<String, Place> byVmId = new HashMap<>();
  private final Map<String, List<String>> byName = new HashMap<>();

  /**
   * The VM {@code vmId} is now at {@code place} (null: no longer listed).
   *
   * @return whether its name was added, removed or changed
   */
  public boolean moved(String vmId, Place place) {
    Place old = place == null ? byVmId.remove(vmId) : byVmId.put(vmId, place);
    String oldName = old == null ? null : old.name();
    String newName = place == null ? null : place.name();
    if (Objects.equals(oldName, newName)) {
      return false;
    }
    if (oldName != null) {
      List<String> ids = byName.get(oldName);
      if (ids != null) {
        ids.remove(vmId);
        if (ids.isEmpty()) {
          byName.remove(oldName);
        }
      }
    }
    if (newName != null) {
      byName.computeIfAbsent(newName, n -> new ArrayList<>(1)).add(vmId);
    }
    return true;
  }

  /** Whether a VM the inventory lists bears this name (any case). */
  public boolean listed(String name) {
    return byName.containsKey(name.toLowerCase(Locale.ROOT));
  }

  /**
   * The vmId of the one VM the inventory lists under this name (any case) in this scope; null when
   * the scope is unknown, or the inventory lists none there, or more than one. A name alone is not
   * enough: names are unique only within a resource group, and a VM the inventory does not list
   * (outside its tag filter, created since its last refresh) may share its name with one it lists
   * elsewhere, which would count it in the wrong group.
   *
   * @param scope the event's {@link #scope}: that of its ARM id, or of a VM that reported it (an
   *     event's VMs share their scale set's or availability set's resource group)
   */
  public String placed(String name, String scope) {
    List<String> ids = byName.get(name.toLowerCase(Locale.ROOT));
    if (ids == null || scope == null) {
      return null;
    }
    String found = null;
    for (String id : ids) {
      if (scope.equals(byVmId.get(id).scope())) {
        if (found != null) {
          return null;
        }
        found = id;
      }
    }
    return found;
  }

  /**
   * The vmId of the VM the inventory lists under a name an event lists, in the event's scope: that
   * of its ARM id, or else where the inventory puts a VM it knows that reported the event ({@link
   * #placed(String, String)}).
   *
   * @param eventResource the scheduled event's ARM id as Azure's central delivery gave it, or null
   * @param reported the VMs that reported the event
   * @param known whether the fleet counts a reporting vmId as the inventory's VM
   */
  public String placed(
      String name,
      String eventResource,
      Collection<VmEventState> reported,
      Predicate<String> known) {
    String scope = scope(eventResource);
    if (scope == null) {
      for (VmEventState s : reported) {
        Place p = known.test(s.vmId()) ? byVmId.get(s.vmId()) : null;
        if (p != null && p.scope() != null) {
          scope = p.scope();
          break;
        }
      }
    }
    return placed(name, scope);
  }

  /** Where the inventory puts this VM, or null when it does not list it. */
  public Place place(String vmId) {
    return byVmId.get(vmId);
  }

  public void clear() {
    byVmId.clear();
    byName.clear();
  }

  /**
   * {@code /subscriptions/<id>/resourcegroups/<name>} of an ARM id, lower case: a VM, its scale
   * set, its availability set and their scheduled events share it. Null when the id has none.
   */
  public static String scope(String armId) {
    if (armId == null) {
      return null;
    }
    String[] p = armId.toLowerCase(Locale.ROOT).split("/");
    // "", "subscriptions", <id>, "resourcegroups", <name>, ...
    if (p.length < 5
        || !p[0].isEmpty()
        || !p[1].equals("subscriptions")
        || p[2].isEmpty()
        || !p[3].equals("resourcegroups")
        || p[4].isEmpty()) {
      return null;
    }
    return "/subscriptions/" + p[2] + "/resourcegroups/" + p[4];
  }
}
