package dev.sebridge.app.fleet;

import dev.sebridge.config.ConfigException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** Where the fleet service is and the token to call it with, shared by the client commands. */
final class FleetClientOptions {
  static final String URL_ENV = "SEBRIDGE_FLEET_URL";
  static final String TOKEN_ENV = "SEBRIDGE_FLEET_TOKEN";

  @Option(
      names = "--url",
      paramLabel = "URL",
      description = "The fleet service (default: $" + URL_ENV + ", else http://127.0.0.1:8080).")
  URI url;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description = "A file holding the bearer token (default: $" + TOKEN_ENV + ").")
  Path tokenFile;

  @Option(names = "--json", description = "Print the service's JSON instead of a table.")
  boolean json;

  /** With {@code --json}: prints the service's JSON (indented) and answers true. */
  boolean printedJson(java.io.PrintWriter out, Object body) throws IOException {
    if (!json) {
      return false;
    }
    out.println(FleetClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(body));
    out.flush();
    return true;
  }

  FleetClient client(Map<String, String> env) {
    URI base = url != null ? url : URI.create(env.getOrDefault(URL_ENV, "http://127.0.0.1:8080"));
    String token;
    if (tokenFile != null) {
      try {
        token = Files.readString(tokenFile, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new ConfigException(
            "--token-file", "cannot read " + tokenFile + ": " + e.getMessage());
      }
    } else {
      token = env.get(TOKEN_ENV);
    }
    if (token == null || token.isBlank()) {
      throw new ConfigException(
          "--token-file", "no token: give --token-file FILE or set " + TOKEN_ENV);
    }
    return new FleetClient(base.toString().endsWith("/") ? base : URI.create(base + "/"), token);
  }
}
