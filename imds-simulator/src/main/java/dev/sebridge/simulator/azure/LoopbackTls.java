package dev.sebridge.simulator.azure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate for 127.0.0.1 and localhost, for the local HTTPS endpoints that stand
 * in for Azure services (Logs Ingestion, Key Vault, Resource Graph, the Maintenance API) in tests
 * and the demo: the server's context, a client context trusting only it, and that trust as a PKCS12
 * file (for a separate JVM). One key per JVM: keytool takes about a second.
 *
 * @param serverContext for the endpoint
 * @param clientContext for the client under test
 * @param trustStore the certificate as a PKCS12 trust store, password {@link #PASSWORD}
 */
public record LoopbackTls(SSLContext serverContext, SSLContext clientContext, Path trustStore) {
  public static final String PASSWORD = "changeit";

  private static LoopbackTls shared;

  /** The JVM's loopback certificate, made on first use. */
  public static synchronized LoopbackTls get() throws IOException {
    if (shared == null) {
      shared = create();
    }
    return shared;
  }

  private static LoopbackTls create() throws IOException {
    try {
      Path dir = Files.createTempDirectory("loopback-tls");
      // Deleted at exit, files first (deleteOnExit runs in reverse order of registration).
      dir.toFile().deleteOnExit();
      Path keyStore = dir.resolve("server.p12");
      keyStore.toFile().deleteOnExit();
      dir.resolve("trust.p12").toFile().deleteOnExit();
      char[] pw = PASSWORD.toCharArray();
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                  "-genkeypair",
                  "-alias",
                  "endpoint",
                  "-keyalg",
                  "EC",
                  "-groupname",
                  "secp256r1",
                  "-dname",
                  "CN=127.0.0.1",
                  "-ext",
                  "SAN=ip:127.0.0.1,dns:localhost",
                  "-validity",
                  "7",
                  "-storetype",
                  "PKCS12",
                  "-keystore",
                  keyStore.toString(),
                  "-storepass",
                  PASSWORD,
                  "-keypass",
                  PASSWORD)
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("keytool failed: " + out);
      }
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(keyStore)) {
        ks.load(in, pw);
      }
      Files.delete(keyStore); // the private key stays in memory only
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, pw);
      SSLContext server = SSLContext.getInstance("TLS");
      server.init(kmf.getKeyManagers(), null, null);

      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, pw);
      trust.setCertificateEntry("endpoint", ks.getCertificate("endpoint"));
      Path trustStore = dir.resolve("trust.p12");
      try (OutputStream o = Files.newOutputStream(trustStore)) {
        trust.store(o, pw);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext client = SSLContext.getInstance("TLS");
      client.init(null, tmf.getTrustManagers(), null);
      return new LoopbackTls(server, client, trustStore);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot set up TLS for a test endpoint", e);
    }
  }
}
