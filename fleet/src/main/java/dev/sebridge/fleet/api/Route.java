package dev.sebridge.fleet.api;

import dev.sebridge.fleet.auth.Principal;
import java.io.IOException;
import java.util.Optional;

/** A group of routes (the API's, the page's): answers and returns true, or returns false. */
public interface Route {
  /** What a route says of a request with a body, before the body is read. */
  enum Admission {
    /** not a route of this group: the next one is asked */
    NOT_MINE,
    /** the body may be read */
    ADMITTED,
    /** refused, and answered */
    REFUSED
  }

  /**
   * Before the body of a request that has one (any method but GET and HEAD) is read: whether this
   * group takes it. A body no group admits is never read (the API's own writes are admitted by
   * {@link FleetServer}: an approver's, within its write rate).
   *
   * @param principal the request's: on the API its bearer token's, elsewhere its session cookie's;
   *     empty without one that authenticates
   */
  default Admission admit(HttpCall call, String path, Optional<Principal> principal)
      throws IOException {
    return Admission.NOT_MINE;
  }

  /**
   * Answers and returns true, or returns false.
   *
   * @param principal as for {@link #admit}
   */
  boolean handle(HttpCall call, String path, Optional<Principal> principal) throws IOException;

  /**
   * Answers, in this group's own form, an error the server met on one of its paths (a body too
   * large, every thread busy, a fault) and returns true; or returns false, and the server answers
   * the API's JSON error. Headers the server set for it (Retry-After, Allow) stay.
   */
  default boolean answersError(HttpCall call, String path, ApiException error) {
    return false;
  }
}
