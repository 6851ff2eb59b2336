package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.model.VmEventState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The VMs an event lists, as the fleet can know them: IMDS releases an approved event for every
 * name in its {@code Resources}; those whose agent reported the event are known by vmId and group,
 * the others only by name. Also what a VM's group is under a rollout's groupBy.
 */
public final class ListedVms {
  static final List<String> ATTRIBUTES = List.of("zone", "scaleSet", "resourceGroup", "location");

  private ListedVms() {}

  /**
   * A VM an event lists.
   *
   * @param vmId its vmId: the one it reported the event with, or the one Azure's inventory lists
   *     under its name ({@code placed}); null while neither says
   * @param name its name
   * @param placed true when no agent reported the event for it and the inventory placed it ({@link
   *     World#placed}): it has a group, and no agent to approve it or say it is back
   */
  public record Listed(String vmId, String name, boolean placed) {
    public Listed(String vmId, String name) {
      this(vmId, name, false);
    }

    public String vmKey() {
      return LedgerEntry.vmKey(vmId, name);
    }
  }

  /**
   * The VMs an event lists: those that reported it, those of its {@code Resources} no reporting VM
   * has that Azure's inventory places ({@link World#placed}), and the names of the others. A VM the
   * inventory does not know ({@link World#known}) is not a reporting VM: whatever name and group it
   * claims, the event's VMs it names are listed by name (or where the inventory places them).
   */
  public static List<Listed> of(String eventId, World w) {
    Map<String, VmEventState> reported = w.eventVms(eventId);
    List<String> unreported = unreported(eventId, w);
    List<Listed> out = new ArrayList<>(reported.size() + unreported.size());
    for (VmEventState s : reported.values()) {
      if (counts(s, w)) {
        out.add(new Listed(s.vmId(), s.name()));
      }
    }
    if (unreported.isEmpty()) {
      return out; // (the common case: every VM it lists reported it)
    }
    Set<String> ids = new HashSet<>();
    out.forEach(l -> ids.add(l.vmId()));
    for (String name : unreported) {
      String vmId = w.placed(eventId, name);
      // (one VM of the inventory listed twice, by a report and by a name, is the reported one)
      out.add(
          vmId == null || ids.contains(vmId)
              ? new Listed(null, name)
              : new Listed(vmId, name, true));
    }
    return out;
  }

  /**
   * The names of the VMs an event lists as the ledger enters them when it releases the event
   * ({@link #of}), once each without case: what the fleet's commands name in their {@code
   * resources} claim, so that an agent refuses the event if Azure lists another VM in it by the
   * time it approves (IMDS would release that VM too, counted nowhere). Empty when the views do not
   * show the event, or none of the VMs it lists has a usable name: a command then carries no such
   * claim. A VM that reported the event with a blank name (an agent always sends its name: only a
   * buggy or hostile one sends a blank) is left out; the claim names every other VM the event
   * lists, so the other agents still refuse an event Azure grew. Before, such a report emptied the
   * claim and switched the check off for every VM of its event. A blank name in the event's {@code
   * Resources} is left out too: no VM has it.
   */
  public static List<String> counted(String eventId, World w) {
    if (!w.viewed(eventId)) {
      return List.of();
    }
    Set<String> seen = new HashSet<>();
    List<String> out = new ArrayList<>();
    for (Listed l : of(eventId, w)) {
      if (l.name() == null || l.name().isBlank()) {
        // A blank name in the event's Resources (no VM's), or a VM reported with one (a buggy or
        // hostile agent): left out.
        continue;
      }
      if (seen.add(l.name().toLowerCase(Locale.ROOT))) {
        out.add(l.name());
      }
    }
    return List.copyOf(out);
  }

  /** The vmIds and names of these VMs, in lower case ({@link LedgerEntry#of}). */
  static Set<String> idsAndNames(List<Listed> listed) {
    Set<String> out = new HashSet<>();
    for (Listed l : listed) {
      for (String s : new String[] {l.vmId(), l.name()}) {
        if (s != null) {
          out.add(s.toLowerCase(Locale.ROOT));
        }
      }
    }
    return out;
  }

  /** The VMs of an event that have not reported it and Azure's inventory places. */
  public static List<Listed> placed(String eventId, World w) {
    if (unreported(eventId, w).isEmpty()) {
      return List.of(); // only names no VM reported can be placed
    }
    return of(eventId, w).stream().filter(Listed::placed).toList();
  }

  /**
   * The names an event lists that no VM reporting it has and Azure's inventory does not place: the
   * VMs the fleet cannot count in a group.
   */
  public static List<String> unplaced(String eventId, World w) {
    return of(eventId, w).stream().filter(l -> l.vmId() == null).map(Listed::name).toList();
  }

  /**
   * Whether the fleet may take an event as over for the VMs it lists by name: it is closed and a VM
   * the fleet knows reported it, or it was (an unknown VM's "completed" alone is not taken: such
   * VMs count until {@link Ledger#UNKNOWN_AT_MOST} after their release, or NotBefore for a placed
   * one, while nothing says the event runs). An event the views do not hold is not seen closed:
   * they may not have caught up with it (a failover); the hour rule ends it.
   */
  static boolean seenClosed(String eventId, World w) {
    if (w.open(eventId) || !w.viewed(eventId)) {
      return false;
    }
    Map<String, VmEventState> vms = w.eventVms(eventId);
    return vms.isEmpty() || vms.values().stream().anyMatch(s -> w.known(s.vmId()));
  }

  /** Whether a VM's report of an event makes it a VM the event lists by vmId. */
  private static boolean counts(VmEventState s, World w) {
    return !s.vanished() && w.known(s.vmId());
  }

  /**
   * The names an event lists that no VM reporting it has (case-insensitive, as IMDS compares). A VM
   * the fleet closed as {@code vanished} (nothing heard from it for {@code fleet.vm-retention}) is
   * one of them: it may be gone, or only its agent; IMDS would release it all the same. So is one
   * the inventory does not know.
   */
  public static List<String> unreported(String eventId, World w) {
    Collection<VmEventState> reported = w.eventVms(eventId).values();
    List<String> resources = w.resources(eventId);
    if (resources.size() == 1 && reported.size() == 1) {
      // The common case (Azure sends a host update as one-VM events): no set to build.
      VmEventState only = reported.iterator().next();
      return only.name() != null
              && only.name().equalsIgnoreCase(resources.get(0))
              && counts(only, w)
          ? List.of()
          : resources;
    }
    Set<String> names = new HashSet<>();
    for (VmEventState s : reported) {
      if (s.name() != null && counts(s, w)) {
        names.add(s.name().toLowerCase(Locale.ROOT));
      }
    }
    Set<String> out = new TreeSet<>();
    for (String name : resources) {
      if (!names.contains(name.toLowerCase(Locale.ROOT))) {
        out.add(name);
      }
    }
    return List.copyOf(out);
  }

  /**
   * A VM's group under a groupBy: {@code all}, {@code zone=1,scaleSet=web} ({@code -} for an
   * attribute it does not have or has blank: Resource Graph and the views leave a blank one out),
   * or {@link Ledger#UNKNOWN_GROUP} for a VM known only by name. The attributes' values are in
   * lower case ({@link #normalGroup}): Azure's names are compared without case, and its answers
   * spell one resource group or scale set in several cases (Compute often in upper case, Resource
   * Graph in lower case, older and newer instances of one scale set each their own way); a group
   * spelt two ways would have two limits.
   */
  public static String group(String vmId, Map<String, String> attributes, List<String> groupBy) {
    return group(vmId, attributes::get, groupBy);
  }

  /** {@link #group(String, Map, List)} with the VM's attributes read by name. */
  public static String group(
      String vmId, java.util.function.Function<String, String> attributes, List<String> groupBy) {
    if (groupBy.isEmpty()) {
      return "all";
    }
    if (vmId == null) {
      return Ledger.UNKNOWN_GROUP;
    }
    StringBuilder b = new StringBuilder();
    for (String a : groupBy) {
      String v = attributes.apply(a);
      b.append(b.length() == 0 ? "" : ",").append(a).append('=').append(value(v));
    }
    return b.toString();
  }

  /**
   * A group as {@link #group} names it now: each attribute's value in lower case, a blank one as
   * {@code -}, its name as it is ({@code scaleSet=Web} is {@code scaleSet=web}). For groups
   * recorded before (a rollout's VMs and limits, read back from its store); the same string when it
   * needs no change.
   */
  public static String normalGroup(String group) {
    if (group == null || group.indexOf('=') < 0 || named(group)) {
      return group; // all, unknown, or named as now (every group a step builds: no copy)
    }
    StringBuilder b = new StringBuilder(group.length());
    String[] parts = group.split(",", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      int eq = part.indexOf('=');
      b.append(i == 0 ? "" : ",");
      if (eq < 0) {
        b.append(lower(part)); // the rest of a value with a comma (no Azure name has one)
      } else {
        b.append(part, 0, eq + 1).append(value(part.substring(eq + 1)));
      }
    }
    String named = b.toString();
    return named.equals(group) ? group : named;
  }

  /**
   * Whether every part of the group is an attribute whose value is named as {@link #value} names it
   * (a scan, no copy).
   */
  private static boolean named(String group) {
    boolean value = false;
    int start = 0;
    for (int i = 0; i < group.length(); ) {
      int c = group.codePointAt(i);
      if (c == ',') {
        if (!value || blank(group, start, i)) {
          return false;
        }
        value = false;
      } else if (c == '=' && !value) {
        value = true;
        start = i + 1;
      } else if (value && fold(c) != c) {
        return false;
      }
      i += Character.charCount(c);
    }
    return value && !blank(group, start, group.length());
  }

  /** Whether {@code s} from {@code from} to {@code to} is blank, as {@link String#isBlank}. */
  private static boolean blank(String s, int from, int to) {
    for (int i = from; i < to; ) {
      int c = s.codePointAt(i);
      if (!Character.isWhitespace(c)) {
        return false;
      }
      i += Character.charCount(c);
    }
    return true;
  }

  /** An attribute's value as a group names it: in lower case, {@code -} when it has none. */
  static String value(String v) {
    return v == null || v.isBlank() ? "-" : lower(v);
  }

  /**
   * A value of a group folded as {@link String#equalsIgnoreCase} compares (each code point upper-
   * then lower-cased: {@code ſ} and {@code s}, {@code ı} and {@code i} are one letter), so two
   * spellings Azure takes for one name are one group.
   */
  private static String lower(String v) {
    for (int i = 0; i < v.length(); ) {
      int c = v.codePointAt(i);
      if (fold(c) != c) {
        StringBuilder b = new StringBuilder(v.length());
        v.codePoints().forEach(p -> b.appendCodePoint(fold(p)));
        return b.toString();
      }
      i += Character.charCount(c);
    }
    return v;
  }

  private static int fold(int codePoint) {
    return Character.toLowerCase(Character.toUpperCase(codePoint));
  }

  /** A VM's zone, scaleSet, resourceGroup and location as the fleet sees them (none by name). */
  public static Map<String, String> attributes(String vmId, World w) {
    Map<String, String> m = new TreeMap<>();
    if (vmId != null) {
      for (String a : ATTRIBUTES) {
        String v = w.attribute(vmId, a);
        if (v != null) {
          m.put(a, v);
        }
      }
    }
    return m;
  }
}
