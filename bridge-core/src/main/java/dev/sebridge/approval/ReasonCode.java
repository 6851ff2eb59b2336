package dev.sebridge.approval;

import java.util.Arrays;
import java.util.Optional;

/**
 * Every {@code data.reasonCode} an {@code approval.result} envelope can carry: what a workflow keys
 * on. docs/approvals.md explains each and what to do about it; a test keeps the two in step.
 */
public enum ReasonCode {
  // Accepted (outcome accepted or dry-run).
  ACCEPTED("accepted", "a signed command: StartRequests posted"),
  POLICY_USER_INITIATED("policy-user-initiated", "local policy: a user-initiated event"),
  POLICY_SHORT_FREEZE("policy-short-freeze", "local policy: a Freeze shorter than the limit"),
  // The command itself (outcome rejected, nothing posted).
  MALFORMED("malformed", "not a command CloudEvent, or a required claim is missing or wrong"),
  OVERSIZED("oversized", "the command is larger than the limit"),
  UNSIGNED("unsigned", "data is not a compact JWS"),
  ALG_NOT_ALLOWED("alg-not-allowed", "the JWS algorithm is not ES256 or EdDSA"),
  UNTRUSTED_KEY("untrusted-key", "kid names no trusted key (of that algorithm)"),
  BAD_SIGNATURE("bad-signature", "the signature does not verify"),
  WRONG_AUDIENCE("wrong-audience", "aud is not this VM"),
  EXPIRED("expired", "exp has passed (60 s of skew allowed)"),
  NOT_YET_VALID("not-yet-valid", "nbf or iat is in the future (60 s of skew allowed)"),
  LIFETIME_TOO_LONG("lifetime-too-long", "exp - iat is over 10 minutes"),
  REPLAYED("replayed", "this command id was used before"),
  REPLAY_CACHE_LOST("replay-cache-lost", "the agent lost its replay cache and waits out old ones"),
  // The events, on a fresh IMDS read (outcome rejected, nothing posted).
  UNKNOWN_EVENT("unknown-event", "IMDS lists no such event"),
  NOT_SCHEDULED("not-scheduled", "the event is not Scheduled any more"),
  NOT_LISTED("not-listed", "the event does not list this VM in Resources"),
  TYPE_NOT_ALLOWED("type-not-allowed", "approval.allow-types does not allow the event's type"),
  RESOURCES_CHANGED(
      "resources-changed",
      "the event lists a VM the command's issuer did not count (its resources claim)"),
  // IMDS (outcome failed).
  IMDS_UNAVAILABLE("imds-unavailable", "IMDS could not be read to check the events"),
  IMDS_REFUSED("imds-refused", "IMDS did not take the POST"),
  INTERRUPTED(
      "interrupted",
      "the agent restarted while handling the command and IMDS lists the event no more"),
  // The records themselves.
  POISON_RECORD(
      "poison-record",
      "the record made the command source fail again and again at the same position: skipped"),
  SUMMARIZED(
      "summarized", "rejections beyond the per-interval limit, counted and reported together");

  private final String label;
  private final String meaning;

  ReasonCode(String label, String meaning) {
    this.label = label;
    this.meaning = meaning;
  }

  /** The value of {@code data.reasonCode}. */
  public String label() {
    return label;
  }

  /** One line saying what it means. */
  public String meaning() {
    return meaning;
  }

  public static Optional<ReasonCode> byLabel(String label) {
    return Arrays.stream(values()).filter(c -> c.label.equals(label)).findFirst();
  }

  @Override
  public String toString() {
    return label;
  }
}
