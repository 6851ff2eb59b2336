package dev.sebridge.approval;

import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** Approval configuration ({@code approval.*}). */
public record ApprovalSettings(
    boolean userInitiated,
    boolean shortFreeze,
    Duration shortFreezeMax,
    boolean leaderOnly,
    boolean dryRun,
    Set<String> allowedTypes) {

  /** Types that may always be approved: the VM survives them. */
  static final Set<String> ALWAYS_ALLOWED = Set.of("freeze", "reboot", "redeploy");

  public static ApprovalSettings from(Configuration c) {
    var rules = c.get(CoreKeys.APPROVAL_POLICY);
    return new ApprovalSettings(
        rules.contains("user-initiated"),
        rules.contains("short-freeze"),
        c.get(CoreKeys.APPROVAL_SHORT_FREEZE_MAX),
        c.get(CoreKeys.APPROVAL_LEADER_ONLY),
        c.get(CoreKeys.APPROVAL_DRY_RUN),
        c.get(CoreKeys.APPROVAL_ALLOW_TYPES).stream()
            .map(t -> t.toLowerCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet()));
  }

  public boolean anyPolicy() {
    return userInitiated || shortFreeze;
  }

  /** Freeze, Reboot, Redeploy always; anything else (Terminate, Preempt, new types) if listed. */
  public boolean typeAllowed(String eventType) {
    if (eventType == null) {
      return false;
    }
    String t = eventType.toLowerCase(Locale.ROOT);
    return ALWAYS_ALLOWED.contains(t) || allowedTypes.contains(t);
  }
}
