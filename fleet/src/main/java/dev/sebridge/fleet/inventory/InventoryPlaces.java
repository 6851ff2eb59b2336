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
   * @param group {@code /subscriptions/<id>/resourcegroups/<name>} of its ARM id, lower case, or
   *     null when its ARM id has none
   * @param instance whether it is a uniform scale set's instance ({@code
   *     .../virtualMachineScaleSets/<set>/virtualMachines/<n>}): never the VM an event's ARM id
   *     names, whatever its name
   */
  private static final java.util.regex.Pattern INSTANCE =
      java.util.regex.Pattern.compile("(?i).*/virtualMachineScaleSets/[^/]+/virtualMachines/[^/]+");

  public record Place(
      String name,
      String group,
      String zone,
      String scaleSet,
      String availabilitySet,
      String resourceGroup,
      String location,
      boolean instance) {
    /** What the index keeps of a record: null for one without a name (an event cannot list it). */
    public static Place of(InventoryVm v) {
      if (v == null || v.name() == null || v.name().isBlank()) {
        return null;
      }
      Scope s = Scope.of(v.resourceId());
      return new Place(
          v.name().toLowerCase(Locale.ROOT),
          s == null ? null : s.group(),
          v.zone(),
          blankAsNull(v.scaleSet()),
          blankAsNull(v.availabilitySet()),
          v.resourceGroup(),
          v.location(),
          v.resourceId() != null && INSTANCE.matcher(v.resourceId()).matches());
    }

    private static String blankAsNull(String s) {
      return s == null || s.isBlank() ? null : s;
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

    /**
     * Whether this VM is in the scope: its resource group, and its parent when the scope has one.
     */
    boolean in(Scope s) {
      if (!s.group().equals(group)) {
        return false;
      }
      return switch (s.kind()) {
        case GROUP -> true;
        case GROUP_OF_VMS -> !instance;
        case VM -> !instance && s.parent().equalsIgnoreCase(name);
        case SCALE_SET -> s.parent().equalsIgnoreCase(scaleSet);
        case AVAILABILITY_SET -> s.parent().equalsIgnoreCase(availabilitySet);
      };
    }
  }

  /** What a scheduled event's VMs share: a resource group, and the VM or set it is of. */
  public enum Kind {
    GROUP,
    /** The VMs of a resource group that are VM resources (no uniform scale set's instance). */
    GROUP_OF_VMS,
    VM,
    SCALE_SET,
    AVAILABILITY_SET
  }

  /**
   * Where an event's VMs are.
   *
   * @param group {@code /subscriptions/<id>/resourcegroups/<name>}, lower case
   * @param kind what {@code parent} names
   * @param parent the VM, scale set or availability set the event is of (null for {@link
   *     Kind#GROUP})
   */
  public record Scope(String group, Kind kind, String parent) {
    /**
     * The scope of an ARM id: its resource group, and the VM, scale set or availability set it is
     * of ({@code .../providers/Microsoft.Compute/<type>/<name>/...}). Null when it has no resource
     * group.
     */
    public static Scope of(String armId) {
      if (armId == null) {
        return null;
      }
      String[] p = armId.split("/");
      // "", "subscriptions", <id>, "resourceGroups", <name>, "providers", <ns>, <type>, <name>
      if (p.length < 5
          || !p[0].isEmpty()
          || !p[1].equalsIgnoreCase("subscriptions")
          || p[2].isEmpty()
          || !p[3].equalsIgnoreCase("resourceGroups")
          || p[4].isEmpty()) {
        return null;
      }
      String group =
          ("/subscriptions/" + p[2] + "/resourcegroups/" + p[4]).toLowerCase(Locale.ROOT);
      if (p.length >= 9
          && p[5].equalsIgnoreCase("providers")
          && p[6].equalsIgnoreCase("Microsoft.Compute")
          && !p[8].isEmpty()) {
        Kind kind =
            switch (p[7].toLowerCase(Locale.ROOT)) {
              case "virtualmachines" -> Kind.VM;
              case "virtualmachinescalesets" -> Kind.SCALE_SET;
              case "availabilitysets" -> Kind.AVAILABILITY_SET;
              default -> null;
            };
        if (kind != null) {
          return new Scope(group, kind, p[8]);
        }
      }
      return new Scope(group, Kind.GROUP, null);
    }
  }

  private final Map<String, Place> byVmId = new HashMap<>();
  private final Map<String, List<String>> byName = new HashMap<>();

  /**
   * The VM {@code vmId} is now at {@code place} (null: no longer listed).
   *
   * @return whether its name was added, removed or changed, or its resource group changed (which of
   *     Azure's words name it: {@link #listed(String, String)})
   */
  public boolean moved(String vmId, Place place) {
    Place old = place == null ? byVmId.remove(vmId) : byVmId.put(vmId, place);
    String oldName = old == null ? null : old.name();
    String newName = place == null ? null : place.name();
    if (Objects.equals(oldName, newName)) {
      return old != null && place != null && !Objects.equals(old.group(), place.group());
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
   * Whether a VM the inventory lists bears this name (any case) in the resource group of the
   * scheduled event's ARM id; in any resource group when there is no such id. A namesake in another
   * resource group (another team's VM of the subscription) is not the fleet's.
   */
  public boolean listed(String name, String eventResource) {
    List<String> ids = byName.get(name.toLowerCase(Locale.ROOT));
    if (ids == null) {
      return false;
    }
    Scope scope = Scope.of(eventResource);
    if (scope == null) {
      return true;
    }
    for (String id : ids) {
      String group = byVmId.get(id).group();
      if (group == null || scope.group().equals(group)) {
        return true; // (a VM listed without an ARM id could be anywhere: counted)
      }
    }
    return false;
  }

  /**
   * The vmId of the one VM the inventory lists under this name (any case) in this scope: its
   * resource group, and the VM, scale set or availability set the event is of when the scope says;
   * null when the scope is unknown, or the inventory lists none there, or more than one. A name
   * alone is not enough: names are unique only within a resource group (or a scale set), and a VM
   * the inventory does not list (outside its tag filter, created since its last refresh) may share
   * its name with one it lists elsewhere, which would count it in the wrong group.
   */
  public String placed(String name, Scope scope) {
    List<String> ids = byName.get(name.toLowerCase(Locale.ROOT));
    if (ids == null || scope == null) {
      return null;
    }
    String found = null;
    for (String id : ids) {
      if (byVmId.get(id).in(scope)) {
        if (found != null) {
          return null;
        }
        found = id;
      }
    }
    return found;
  }

  /**
   * The vmId of the VM the inventory lists under a name an event lists, in the event's scope
   * ({@link #placed(String, Scope)}): that of its ARM id (for an ARM id of one VM, the VMs it lists
   * beside that VM are of its scale set or availability set, or of its resource group); or else
   * where the inventory puts the VMs it knows that reported the event, when they all agree (their
   * resource group, and their scale set or availability set when they share one).
   *
   * @param eventResource the scheduled event's ARM id as Azure's central delivery gave it, or null
   * @param resources the names the event lists: only a reporting VM it lists tells its scope
   * @param reported the VMs that reported the event
   * @param known whether the fleet counts a reporting vmId as the inventory's VM
   */
  public String placed(
      String name,
      String eventResource,
      Collection<String> resources,
      Collection<VmEventState> reported,
      Predicate<String> known) {
    Scope scope = Scope.of(eventResource);
    if (scope != null && scope.kind() == Kind.VM && !scope.parent().equalsIgnoreCase(name)) {
      scope = around(scope);
    }
    return placed(name, scope != null ? scope : reporters(resources, reported, known));
  }

  /**
   * Where the other VMs of an event of one VM are: the scale set or availability set the inventory
   * puts that VM in, or else its resource group.
   */
  private Scope around(Scope vm) {
    String id = placed(vm.parent(), vm);
    Place p = id == null ? null : byVmId.get(id);
    if (p != null && p.scaleSet() != null) {
      return new Scope(vm.group(), Kind.SCALE_SET, p.scaleSet());
    }
    if (p != null && p.availabilitySet() != null) {
      return new Scope(vm.group(), Kind.AVAILABILITY_SET, p.availabilitySet());
    }
    // (the VMs an event of a VM's ARM id lists are VM resources, never a uniform instance)
    return new Scope(vm.group(), Kind.GROUP_OF_VMS, null);
  }

  /**
   * The scope the known reporting VMs the event lists share, or null when there are none or they
   * disagree.
   */
  private Scope reporters(
      Collection<String> resources, Collection<VmEventState> reported, Predicate<String> known) {
    java.util.Set<String> listed = new java.util.HashSet<>();
    resources.forEach(n -> listed.add(n.toLowerCase(Locale.ROOT)));
    String group = null;
    String scaleSet = null;
    String availabilitySet = null;
    boolean first = true;
    for (VmEventState s : reported) {
      Place p = known.test(s.vmId()) ? byVmId.get(s.vmId()) : null;
      if (p == null || !listed.contains(p.name())) {
        continue; // not the inventory's, or a VM the event does not list: tells nothing
      }
      if (p.group() == null || (!first && !p.group().equals(group))) {
        return null; // reporters in two resource groups: no scope to trust
      }
      scaleSet = first || equal(scaleSet, p.scaleSet()) ? p.scaleSet() : null;
      availabilitySet =
          first || equal(availabilitySet, p.availabilitySet()) ? p.availabilitySet() : null;
      group = p.group();
      first = false;
    }
    if (group == null) {
      return null;
    }
    if (scaleSet != null) {
      return new Scope(group, Kind.SCALE_SET, scaleSet);
    }
    if (availabilitySet != null) {
      return new Scope(group, Kind.AVAILABILITY_SET, availabilitySet);
    }
    return new Scope(group, Kind.GROUP, null);
  }

  private static boolean equal(String a, String b) {
    return a != null && a.equalsIgnoreCase(b);
  }

  /** Where the inventory puts this VM, or null when it does not list it. */
  public Place place(String vmId) {
    return byVmId.get(vmId);
  }

  public void clear() {
    byVmId.clear();
    byName.clear();
  }
}
