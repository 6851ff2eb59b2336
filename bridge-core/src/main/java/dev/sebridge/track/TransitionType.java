package dev.sebridge.track;

/** The changes of a scheduled event the agent reports (docs/schemas.md). */
public enum TransitionType {
  /** First seen Scheduled. */
  SCHEDULED("scheduled", "Scheduled"),
  /** First seen Started, with or without a Scheduled phase (a hardware failure has none). */
  STARTED("started", "Started"),
  /** Same status, other fields changed (e.g. NotBefore moved), or an unusual status change. */
  UPDATED("updated", "Updated"),
  /** Gone after Started: the maintenance is over. */
  COMPLETED("completed", "Completed"),
  /** Gone while Scheduled, before NotBefore, never approved: Azure cancelled it. */
  CANCELED("canceled", "Canceled");

  private final String typeSegment;
  private final String label;

  TransitionType(String typeSegment, String label) {
    this.typeSegment = typeSegment;
    this.label = label;
  }

  /** The segment in the CloudEvents type: {@code dev.sebridge.scheduledevent.<segment>.v1}. */
  public String typeSegment() {
    return typeSegment;
  }

  /** The value of {@code data.transition}. */
  public String label() {
    return label;
  }
}
