package dev.sebridge.fleet.auth;

/**
 * Who called the API, and what they may do.
 *
 * @param name the principal as recorded (a user's name, an application's id; for Entra with its
 *     object id beside it): every command's {@code requestedBy}
 * @param role reader (the views) or approver (also approvals)
 * @param id what keys the principal's idempotency keys and rate limits: stable while its name may
 *     change (Entra: the tenant and object id; a static token: its principal)
 */
public record Principal(String name, Role role, String id) {
  public Principal {
    id = id == null ? name : id;
  }

  public Principal(String name, Role role) {
    this(name, role, name);
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
