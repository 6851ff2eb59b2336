package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;

/**
 * The {@code resources} claim of a request's commands (command contract 1.1, docs/schemas.md): the
 * VMs the fleet-wide ledger counted for the event, which an agent holds the event to: it refuses
 * the event if IMDS lists a VM the claim does not give. Pure: the same request, the same claim.
 */
final class ResourcesClaim {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ResourcesClaim.class);

  private ResourcesClaim() {}

  /**
   * Most characters of VM names a command's {@code resources} claim carries: with its other claims
   * and its signature, the command stays within the 16 KiB the command schema allows its JWS (about
   * 400 names of Azure's usual length; an event lists the VMs of one update domain).
   */
  static final int COUNTED_BUDGET = 8_000;

  /**
   * The command's {@code resources} claim: the VMs the ledger counted for the event, without names
   * an agent takes for malformed (logged); none when it counted none by name or they do not fit
   * ({@link #COUNTED_BUDGET}, logged).
   */
  static java.util.Map<String, java.util.List<String>> of(ApprovalRequest r) {
    if (r.counted() == null) {
      return java.util.Map.of();
    }
    // Names an agent takes for malformed (blank, longer than VM_NAME, not plain text) are left
    // out: Azure's names are plain and at most 64 characters, so none of them is a name IMDS lists,
    // and an agent would refuse the whole command for them. (Dropping the claim for them let an
    // agent that reported such a name in an event's Resources switch off the check for its VMs.)
    java.util.List<String> plain = new java.util.ArrayList<>();
    String odd = null;
    for (String n : r.counted()) {
      if (!n.isBlank() && dev.sebridge.command.Untrusted.isPlain(n, VM_NAME)) {
        plain.add(n);
      } else if (odd == null) {
        odd = n;
      }
    }
    if (odd != null) {
      LOG.warn(
          "request {}: event {} lists {} VM name(s) longer than {} characters or not plain text,"
              + " left out of its commands' resources claim (e.g. {})",
          r.requestId(),
          r.eventId(),
          r.counted().size() - plain.size(),
          VM_NAME,
          dev.sebridge.command.Untrusted.text(odd, 100));
    }
    if (plain.isEmpty()) {
      // Nothing an agent could hold the event to: a claim no agent takes (a blank name, refused as
      // malformed), so the event is not approved unchecked, and the command stays small.
      return java.util.Map.of(r.eventId(), java.util.List.of(""));
    }
    int size = plain.stream().mapToInt(n -> n.length() + 3).sum();
    if (size > COUNTED_BUDGET || plain.size() > dev.sebridge.command.CommandVerifier.MAX_COUNTED) {
      LOG.warn(
          "request {}: event {} lists {} VMs, too many to name in its commands; agents will not"
              + " check that its Resources stay those the ledger counted",
          r.requestId(),
          r.eventId(),
          plain.size());
      return java.util.Map.of();
    }
    return java.util.Map.of(r.eventId(), plain);
  }

  /** The longest VM name a claim may give, as agents take it (Azure's are at most 64). */
  static final int VM_NAME = dev.sebridge.command.CommandVerifier.VM_NAME;
}
