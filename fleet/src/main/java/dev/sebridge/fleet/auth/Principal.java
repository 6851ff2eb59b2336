package dev.sebridge.fleet.auth;

/**
 * Who called the API, and what they may do.
 *
 * @param name the principal (a user's name, an application's id): every command's {@code
 *     requestedBy}
 * @param role reader (the views) or approver (also approvals)
 */
public record Principal(String name, Role role) {
  /** Readers see; approvers also approve. */
  public enum Role {
    READER,
    APPROVER;

    public boolean mayApprove() {
      return this == APPROVER;
    }
  }
}
