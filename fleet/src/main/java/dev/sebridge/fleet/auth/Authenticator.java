package dev.sebridge.fleet.auth;

import java.util.List;
import java.util.Optional;

/** Turns a bearer token into a principal, or refuses it. */
@FunctionalInterface
public interface Authenticator {
  Optional<Principal> authenticate(String bearerToken);

  /** The first that accepts the token. */
  static Authenticator anyOf(List<Authenticator> authenticators) {
    return token -> {
      for (Authenticator a : authenticators) {
        Optional<Principal> p = a.authenticate(token);
        if (p.isPresent()) {
          return p;
        }
      }
      return Optional.empty();
    };
  }
}
