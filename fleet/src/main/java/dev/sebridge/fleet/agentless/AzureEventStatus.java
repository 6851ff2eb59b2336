package dev.sebridge.fleet.agentless;

import java.util.Locale;
import java.util.Optional;

/**
 * A scheduled event's status as Azure's central delivery gives it. IMDS shows only the first two;
 * Event Grid and Resource Graph also say when an event is over.
 */
public enum AzureEventStatus {
  SCHEDULED,
  STARTED,
  COMPLETED,
  CANCELED;

  /** Case-insensitive; "Cancelled" is read as {@link #CANCELED}. Empty for anything else. */
  public static Optional<AzureEventStatus> of(String text) {
    if (text == null) {
      return Optional.empty();
    }
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "scheduled" -> Optional.of(SCHEDULED);
      case "started" -> Optional.of(STARTED);
      case "completed" -> Optional.of(COMPLETED);
      case "canceled", "cancelled" -> Optional.of(CANCELED);
      default -> Optional.empty();
    };
  }

  /** As Azure spells it: Scheduled, Started, Completed, Canceled. */
  public String azureName() {
    return name().charAt(0) + name().substring(1).toLowerCase(Locale.ROOT);
  }

  /** True once the event is over (Completed or Canceled). */
  public boolean over() {
    return this == COMPLETED || this == CANCELED;
  }
}
