package dev.sebridge.fleet.auth;

/**
 * Who called the API, and what they may do.
 *
 * @param name the principal as recorded (a user's name, an application's id; for Entra with its
 *     object id beside it): every command's {@code requestedBy}
 * @param role reader (the views) or approver (also approvals)
 * @param id what keys the principal's idempotency keys and rate limits: stable while its name may
 *     change (Entra: the tenant and object id; a static token: its principal)
 * @param expiresAt when the token it came with expires (Entra: its {@code exp}); null: never (a
 *     static token, valid until the configuration drops it)
 */
public record Principal(String name, Role role, String id, java.time.Instant expiresAt) {
  public Principal {
    id = id == null ? name : id;
  }

  /** A principal whose token does not expire (a static token). */
  public Principal(String name, Role role, String id) {
    this(name, role, id, null);
  }

  public Principal(String name, Role role) {
    this(name, role, name);
  }

  /** Whether its token has expired by {@code now} (never for a token without an expiry). */
  public boolean expired(java.time.Instant now) {
    return expiresAt != null && !now.isBefore(expiresAt);
  }

  /** Readers see; approvers also approve. */
  public enum Role {
    READER,
    APPROVER;

    public boolean mayApprove() {
      return this == APPROVER;
    }
  }
}
