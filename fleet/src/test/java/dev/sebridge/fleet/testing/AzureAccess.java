package dev.sebridge.fleet.testing;

import dev.sebridge.simulator.azure.LoopbackTls;
import dev.sebridge.simulator.azure.ResourceGraphEndpoint;
import java.io.IOException;

/** How the service under test reaches the simulator's local Azure: its token, its certificate. */
public final class AzureAccess {
  private AzureAccess() {}

  /** A credential that gives the local Azure's token. */
  public static com.azure.core.credential.TokenCredential credential() {
    return request ->
        reactor.core.publisher.Mono.just(
            new com.azure.core.credential.AccessToken(
                ResourceGraphEndpoint.TOKEN, java.time.OffsetDateTime.now().plusHours(1)));
  }

  /** The Azure SDK's HTTP client, trusting the loopback certificate the local Azure serves. */
  public static com.azure.core.http.HttpClient httpClient() throws IOException {
    return new com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder(
            java.net.http.HttpClient.newBuilder().sslContext(LoopbackTls.get().clientContext()))
        .build();
  }
}
