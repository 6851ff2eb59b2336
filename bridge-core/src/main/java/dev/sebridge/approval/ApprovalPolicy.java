package dev.sebridge.approval;

import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.VmIdentity;
import java.util.Comparator;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The local approval rules (the documentation's reference loop): approve user-initiated events at
 * once; approve a Freeze with {@code 0 <= DurationInSeconds < approval.short-freeze-max} as "no
 * impact". Only events that list this VM, of an allowed type, and (with leader-only) only by the VM
 * whose name sorts first in Resources.
 */
public final class ApprovalPolicy {
  private final ApprovalSettings settings;

  public ApprovalPolicy(ApprovalSettings settings) {
    this.settings = settings;
  }

  /** The rule that approves this newly Scheduled event, if any. */
  public Optional<ReasonCode> ruleFor(ScheduledEvent e, VmIdentity vm) {
    if (!e.isScheduled() || !e.lists(vm.name()) || !settings.typeAllowed(e.eventType())) {
      return Optional.empty();
    }
    if (settings.leaderOnly() && !isLeader(e, vm)) {
      return Optional.empty();
    }
    if (settings.userInitiated() && e.eventSource().map("User"::equalsIgnoreCase).orElse(false)) {
      return Optional.of(ReasonCode.POLICY_USER_INITIATED);
    }
    OptionalInt d = e.durationInSeconds();
    if (settings.shortFreeze()
        && "Freeze".equalsIgnoreCase(e.eventType())
        && d.isPresent()
        && d.getAsInt() >= 0
        && d.getAsInt() < settings.shortFreezeMax().toSeconds()) {
      return Optional.of(ReasonCode.POLICY_SHORT_FREEZE);
    }
    return Optional.empty();
  }

  static boolean isLeader(ScheduledEvent e, VmIdentity vm) {
    return e.resources().stream()
        .min(Comparator.comparing(r -> r.toLowerCase(java.util.Locale.ROOT)))
        .map(first -> first.equalsIgnoreCase(vm.name()))
        .orElse(false);
  }
}
