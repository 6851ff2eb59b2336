package dev.sebridge.fleet.api;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.utils.Utils;

/**
 * What a campaign's counts need of one event, without its view: its VMs' parts counted by status,
 * zone and scale set, and its VMs as 64-bit hashes (a campaign's distinct VMs). The campaign index
 * keeps one for each closed event ({@link CampaignIndex.Sighting#closed}), so a campaign's row, its
 * summary in the API and its panel count a day of closed events without reading or parsing one. A
 * closed event of one VM costs about 130 bytes more in the index than an open one (its statuses,
 * zones and scale sets interned: shared with every other tally's).
 *
 * @param notBefore its NotBefore (the panel orders closed events by it), or null
 * @param parts its parts, one per status, guess, zone and scale set in the order the view lists
 *     them first; an open part (a closed event's part still open: the page shows it silent when its
 *     agent is) one per VM, with its vmId
 * @param vms its VMs' hashes ({@link #hash}), in the order the view lists them
 */
public record EventTally(Instant notBefore, List<Part> parts, long[] vms) {
  /**
   * Parts of an event alike, counted.
   *
   * @param vmId the VM of an open part; null for closed ones (counted together)
   */
  public record Part(
      String status, String guess, String zone, String scaleSet, String vmId, int count) {
    public boolean closed() {
      return vmId == null;
    }

    /** The status the page shows: silent when its agent is and it is open. */
    public String shown(boolean silent) {
      if (silent && !closed()) {
        return "silent";
      }
      return status.equals("inferred") ? Objects.requireNonNullElse(guess, "completed") : status;
    }
  }

  /** The tally of an event's view. */
  public static EventTally of(EventView e) {
    Map<Part, Integer> counted = new LinkedHashMap<>();
    long[] vms = new long[e.vms().size()];
    int i = 0;
    for (VmEventState s : e.vms().values()) {
      vms[i++] = hash(Objects.requireNonNullElse(s.vmId(), ""));
      // (a part without a status or vmId, which the views never write, counts as an open one)
      boolean closed = s.status() != null && s.closed();
      Part p =
          new Part(
              intern(Objects.requireNonNullElse(s.status(), "")),
              intern(s.guess()),
              intern(s.zone()),
              intern(s.scaleSet()),
              closed ? null : Objects.requireNonNullElse(s.vmId(), ""),
              0);
      counted.merge(p, 1, Integer::sum);
    }
    List<Part> parts = new ArrayList<>(counted.size());
    counted.forEach(
        (p, n) -> parts.add(new Part(p.status(), p.guess(), p.zone(), p.scaleSet(), p.vmId(), n)));
    return new EventTally(e.notBefore(), List.copyOf(parts), vms);
  }

  /**
   * A VM's hash as a campaign's distinct count takes it: two 32-bit hashes of its vmId, one in each
   * half (two VMs alike by both, among 100,000, about once in 3,700,000,000 campaigns).
   */
  static long hash(String vmId) {
    return ((long) vmId.hashCode() << 32)
        | (Utils.murmur2(vmId.getBytes(StandardCharsets.UTF_8)) & 0xffffffffL);
  }

  /** The same string as every other tally's (few statuses, zones and scale sets; collected). */
  private static String intern(String s) {
    return s == null ? null : s.intern();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EventTally t
        && Objects.equals(notBefore, t.notBefore)
        && parts.equals(t.parts)
        && Arrays.equals(vms, t.vms);
  }

  @Override
  public int hashCode() {
    return Objects.hash(notBefore, parts, Arrays.hashCode(vms));
  }

  @Override
  public String toString() {
    return "EventTally[" + notBefore + ", " + parts + ", " + vms.length + " VMs]";
  }
}
