package dev.sebridge.fleet.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.crypto.impl.ECDSA;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.util.Base64URL;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.sebridge.simulator.azure.JsonAnswer;
import dev.sebridge.simulator.azure.LoopbackTls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.Signature;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local HTTPS endpoint speaking the Azure Key Vault keys API the fleet service uses: the bearer
 * challenge, {@code GET /keys/<name>/<version>} (the public key) and {@code POST
 * /keys/<name>/<version>/sign} (ES256 over a digest). It holds one EC P-256 key; the private part
 * stays here, as it stays in a vault.
 */
public final class KeyVaultEndpoint implements AutoCloseable {
  public static final String TOKEN = "key-vault-test-access-token";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern KEY = Pattern.compile("/keys/([^/]+)/([^/]+)(/sign)?");

  /** One call: method, path, whether it carried the expected token. */
  public record Call(String method, String path, boolean authorized) {}

  private final HttpsServer server;
  private final ECKey key;
  private final String name;
  private final List<Call> calls = new CopyOnWriteArrayList<>();

  public KeyVaultEndpoint(ECKey key, String name) throws IOException {
    this.key = key;
    this.name = name;
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setHttpsConfigurator(new HttpsConfigurator(LoopbackTls.get().serverContext()));
    server.createContext("/", this::handle);
    server.start();
  }

  /** The key identifier: {@code https://127.0.0.1:<port>/keys/<name>/<version>}. */
  public URI keyId() {
    return URI.create(
        "https://127.0.0.1:" + server.getAddress().getPort() + "/keys/" + name + "/v1");
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      String auth = ex.getRequestHeaders().getFirst("Authorization");
      boolean authorized = ("Bearer " + TOKEN).equals(auth);
      calls.add(new Call(ex.getRequestMethod(), path, authorized));
      byte[] body = ex.getRequestBody().readAllBytes();
      if (!authorized) {
        ex.getResponseHeaders()
            .set(
                "WWW-Authenticate",
                "Bearer authorization=\"https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000\","
                    + " resource=\"https://vault.azure.net\"");
        send(ex, 401, JSON.createObjectNode().put("error", "unauthorized"));
        return;
      }
      Matcher m = KEY.matcher(path);
      if (!m.matches() || !m.group(1).equals(name)) {
        send(ex, 404, JSON.createObjectNode().put("error", "KeyNotFound"));
        return;
      }
      String kid = keyId().toString();
      if (m.group(3) == null && ex.getRequestMethod().equals("GET")) {
        ObjectNode out = JSON.createObjectNode();
        ObjectNode k = out.putObject("key");
        k.put("kid", kid);
        k.put("kty", "EC");
        k.putArray("key_ops").add("sign").add("verify");
        k.put("crv", "P-256");
        k.put("x", key.getX().toString());
        k.put("y", key.getY().toString());
        out.putObject("attributes").put("enabled", true).put("recoveryLevel", "Recoverable");
        send(ex, 200, out);
        return;
      }
      if (m.group(3) != null && ex.getRequestMethod().equals("POST")) {
        JsonNode req = JSON.readTree(body);
        if (!req.path("alg").asText().equals("ES256")) {
          send(ex, 400, JSON.createObjectNode().put("error", "unsupported alg"));
          return;
        }
        byte[] digest = Base64URL.from(req.path("value").asText()).decode();
        Signature s = Signature.getInstance("NONEwithECDSA");
        s.initSign(key.toECPrivateKey());
        s.update(digest);
        byte[] concat = ECDSA.transcodeSignatureToConcat(s.sign(), 64);
        send(
            ex,
            200,
            JSON.createObjectNode()
                .put("kid", kid)
                .put("value", Base64URL.encode(concat).toString()));
        return;
      }
      send(ex, 405, JSON.createObjectNode().put("error", "not here"));
    } catch (Exception e) {
      send(ex, 500, JSON.createObjectNode().put("error", e.toString()));
    }
  }

  private static void send(HttpExchange ex, int status, JsonNode body) throws IOException {
    JsonAnswer.send(ex, status, body);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
