package dev.sebridge.fleet;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * How callers of the fleet service authenticate (listed in {@link FleetKeys#all()}): static tokens
 * from a file, or Microsoft Entra ID access tokens. One of the two is required: nothing is served
 * without a token.
 */
public final class AuthKeys {
  private AuthKeys() {}

  public static final ConfigKey<Path> TOKENS_FILE =
      ConfigKey.builder("fleet.auth.tokens-file", ConfigType.PATH)
          .doc(
              "Static bearer tokens (one machine, the demo): a YAML or JSON list of {token,"
                  + " principal, role} with role reader or approver. Must be readable by its owner"
                  + " only (0600).")
          .build();

  public static final ConfigKey<String> ENTRA_TENANT =
      ConfigKey.builder("fleet.auth.entra.tenant-id", ConfigType.STRING)
          .doc(
              "Microsoft Entra ID tenant whose access tokens are accepted (app roles Fleet.Read"
                  + " and Fleet.Approve): its id, a GUID (the tokens' issuers name it so; a domain"
                  + " name would match none).")
          .validator(
              t ->
                  t.matches(
                          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
                      ? Optional.empty()
                      : Optional.of(t + " is not a tenant id (a GUID)"))
          .build();

  public static final ConfigKey<List<String>> ENTRA_AUDIENCE =
      ConfigKey.builder("fleet.auth.entra.audience", ConfigType.LIST)
          .doc(
              "The audiences a token may be issued for, comma-separated: the API's application ID"
                  + " URI (api://..., what v1 tokens carry) and its client id (the GUID v2 tokens"
                  + " carry). Set both unless the app registration pins one token version.")
          .build();

  public static final ConfigKey<URI> ENTRA_JWKS =
      ConfigKey.builder("fleet.auth.entra.jwks-uri", ConfigType.HTTP_URL)
          .defaultDescription("https://login.microsoftonline.com/<tenant>/discovery/v2.0/keys")
          .doc("Where the tenant's signing keys are read.")
          .build();

  public static final ConfigKey<List<String>> ENTRA_ISSUER =
      ConfigKey.builder("fleet.auth.entra.issuer", ConfigType.LIST)
          .defaultDescription(
              "https://sts.windows.net/<tenant>/,https://login.microsoftonline.com/<tenant>/v2.0")
          .doc(
              "The issuers a token may carry, comma-separated: by default the tenant's v1 and v2"
                  + " issuers (az account get-access-token gets a v1 token).")
          .build();

  static List<ConfigKey<?>> all() {
    return List.of(TOKENS_FILE, ENTRA_TENANT, ENTRA_AUDIENCE, ENTRA_JWKS, ENTRA_ISSUER);
  }

  /** Problems spanning these keys, added to {@code problems}. */
  static void validate(Configuration c, List<ConfigProblem> problems) {
    if (!c.isSet(TOKENS_FILE) && !c.isSet(ENTRA_TENANT)) {
      problems.add(
          new ConfigProblem(
              TOKENS_FILE.name(),
              "no way to authenticate: set fleet.auth.tokens-file or fleet.auth.entra.tenant-id"
                  + " (nothing is served without a token)"));
    }
    if (!c.isSet(ENTRA_TENANT)) {
      for (ConfigKey<?> k : List.of(ENTRA_AUDIENCE, ENTRA_ISSUER, ENTRA_JWKS)) {
        if (c.isSet(k)) {
          problems.add(new ConfigProblem(k.name(), "is used only with fleet.auth.entra.tenant-id"));
        }
      }
    }
    if (c.isSet(ENTRA_TENANT) && !c.isSet(ENTRA_AUDIENCE)) {
      problems.add(
          new ConfigProblem(ENTRA_AUDIENCE.name(), "is required with fleet.auth.entra.tenant-id"));
    }
  }
}
