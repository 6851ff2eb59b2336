package dev.sebridge.fleet;

import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.EntraTokens;
import dev.sebridge.fleet.auth.StaticTokens;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/** Who may call the service, as configured: static tokens, Entra ID tokens, or both. */
final class FleetAuthenticators {
  private FleetAuthenticators() {}

  static Authenticator of(Configuration config) {
    List<Authenticator> all = new ArrayList<>();
    config
        .find(AuthKeys.TOKENS_FILE)
        .ifPresent(f -> all.add(StaticTokens.load(f, AuthKeys.TOKENS_FILE.name())));
    config
        .find(AuthKeys.ENTRA_TENANT)
        .ifPresent(
            tenant ->
                all.add(
                    new EntraTokens(
                        config
                            .find(AuthKeys.ENTRA_JWKS)
                            .orElse(
                                URI.create(
                                    "https://login.microsoftonline.com/"
                                        + tenant
                                        + "/discovery/v2.0/keys")),
                        config
                            .find(AuthKeys.ENTRA_ISSUER)
                            .<java.util.Set<String>>map(java.util.Set::copyOf)
                            .orElse(EntraTokens.issuersOf(tenant)),
                        java.util.Set.copyOf(config.get(AuthKeys.ENTRA_AUDIENCE)))));
    return Authenticator.anyOf(all);
  }
}
