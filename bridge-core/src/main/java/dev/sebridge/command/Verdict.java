package dev.sebridge.command;

/** What the verifier made of a command. */
public sealed interface Verdict {

  /** Signature, audience and time claims hold (IMDS is checked next). */
  record Valid(VerifiedCommand command) implements Verdict {}

  /**
   * Refused, with a machine-readable code and a human-readable reason. {@code commandId} and the
   * other fields are whatever could be read (untrusted; for the result envelope only).
   */
  record Rejected(
      dev.sebridge.approval.ReasonCode reasonCode, String reason, String commandId, String keyId)
      implements Verdict {}
}
