package dev.sebridge.azure;

import com.azure.core.credential.TokenCredential;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.identity.ManagedIdentityCredentialBuilder;
import com.azure.identity.WorkloadIdentityCredentialBuilder;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.Configuration;

/** The Azure SDK credential for an {@link AzureCredentials} choice. */
public final class AzureTokens {
  private AzureTokens() {}

  /** The credential a configuration names with its credential and client-id keys. */
  public static TokenCredential from(
      Configuration config, ConfigKey<String> credential, ConfigKey<String> clientId) {
    return create(
        AzureCredentials.parse(config.get(credential)).orElseThrow(),
        config.find(clientId).orElse(null));
  }

  /**
   * The credential. {@code clientId} selects a user-assigned managed identity (or the workload
   * identity's application); null means the system-assigned identity (or AZURE_CLIENT_ID).
   */
  public static TokenCredential create(AzureCredentials kind, String clientId) {
    return switch (kind) {
      case MANAGED_IDENTITY -> {
        ManagedIdentityCredentialBuilder b = new ManagedIdentityCredentialBuilder();
        if (clientId != null) {
          b.clientId(clientId);
        }
        yield b.build();
      }
      case WORKLOAD_IDENTITY -> {
        WorkloadIdentityCredentialBuilder b = new WorkloadIdentityCredentialBuilder();
        if (clientId != null) {
          b.clientId(clientId);
        }
        yield b.build();
      }
      case DEFAULT -> {
        DefaultAzureCredentialBuilder b = new DefaultAzureCredentialBuilder();
        if (clientId != null) {
          b.managedIdentityClientId(clientId);
        }
        yield b.build();
      }
    };
  }
}
