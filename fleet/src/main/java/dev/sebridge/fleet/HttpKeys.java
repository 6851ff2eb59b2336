package dev.sebridge.fleet;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.api.HttpLimits;
import java.time.Duration;
import java.util.Optional;

/**
 * The keys of the fleet's HTTP server (listed in {@link FleetKeys#all()} after the port and the
 * address): its timeouts, its bounds and the session cookie's {@code Secure} flag.
 */
public final class HttpKeys {
  private HttpKeys() {}

  public static final ConfigKey<Duration> IDLE_TIMEOUT =
      ConfigKey.builder("fleet.http.idle-timeout", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofSeconds(30))
          .doc(
              "A connection that sends or takes nothing for this long is closed, whatever it was"
                  + " doing (headers half sent, a body announced and not sent, an answer not read)."
                  + " At least 20s: the live page's stream writes every 15 s.")
          .validator(ConfigKey.atLeast(Duration.ofSeconds(20), "20s"))
          .build();

  public static final ConfigKey<Integer> THREADS =
      ConfigKey.builder("fleet.http.threads", ConfigType.INT)
          .defaultValue(32)
          .doc(
              "Threads that answer the API's signed-in requests once their body has arrived, and"
                  + " as many again the page's (each its own pool; requests nobody signed in to an"
                  + " eighth). /healthz and /readyz never wait for them.")
          .validator(positive())
          .build();

  public static final ConfigKey<Integer> QUEUE =
      ConfigKey.builder("fleet.http.queue", ConfigType.INT)
          .defaultValue(256)
          .doc(
              "Requests waiting for one of fleet.http.threads, in each of the API's and the page's"
                  + " pools; past this they are answered 503 with Retry-After at once.")
          .validator(positive())
          .build();

  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      ConfigKey.builder("fleet.http.max-connections", ConfigType.INT)
          .defaultValue(4096)
          .doc(
              "Open connections at most (live pages included); past this the server stops"
                  + " accepting until one closes.")
          .validator(positive())
          .build();

  public static final ConfigKey<Integer> LIVE_PAGES =
      ConfigKey.builder("fleet.http.live-pages", ConfigType.INT)
          .defaultValue(256)
          .doc(
              "Live page streams (Server-Sent Events) open at once on an instance, at most 8 of one"
                  + " principal; more are answered 503 and the page retries. They hold no request"
                  + " thread; each holds a connection (fleet.http.max-connections).")
          .validator(positive())
          .build();

  public static final ConfigKey<Integer> WRITES_PER_MINUTE =
      ConfigKey.builder("fleet.http.writes-per-minute", ConfigType.INT)
          .defaultValue(120)
          .doc(
              "Approvals, rollouts and rollout actions one principal may send per minute, API and"
                  + " page together; more are answered 429 with Retry-After before their body is"
                  + " read.")
          .validator(positive())
          .build();

  public static final ConfigKey<Integer> SIGN_INS_PER_MINUTE =
      ConfigKey.builder("fleet.http.sign-ins-per-minute", ConfigType.INT)
          .defaultValue(10)
          .doc(
              "Sign-ins to the page one client address may try per minute, counted before their"
                  + " body is read; then they are answered 429 until the minute is over. Each"
                  + " failure is logged at INFO. Behind a proxy, set fleet.http.trusted-proxies.")
          .validator(positive())
          .build();

  public static final ConfigKey<java.util.List<String>> TRUSTED_PROXIES =
      ConfigKey.builder("fleet.http.trusted-proxies", ConfigType.LIST)
          .defaultValue(java.util.List.of())
          .doc(
              "Addresses of the proxies in front (the load balancer, the ingress), comma-separated:"
                  + " for a connection from one of them the client is the last address of"
                  + " X-Forwarded-For (sign-in limits are per client). Empty: the connection's"
                  + " address, and X-Forwarded-For is ignored.")
          .build();

  public static final ConfigKey<Boolean> SECURE_COOKIE =
      ConfigKey.builder("fleet.http.secure-cookie", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "Marks the page's session cookie Secure (sent over HTTPS only). The service speaks"
                  + " plain HTTP: terminate TLS in front of it (Application Gateway, an ingress)"
                  + " and keep this true; set false only where the browser reaches the service"
                  + " over plain HTTP (the demo, a laptop). Never taken from a request header.")
          .build();

  /** The server's bounds as configured. */
  /** The keys, in the order the reference lists them. */
  static java.util.List<ConfigKey<?>> all() {
    return java.util.List.of(
        IDLE_TIMEOUT,
        THREADS,
        QUEUE,
        MAX_CONNECTIONS,
        LIVE_PAGES,
        WRITES_PER_MINUTE,
        SIGN_INS_PER_MINUTE,
        TRUSTED_PROXIES,
        SECURE_COOKIE);
  }

  public static HttpLimits limits(Configuration c) {
    return new HttpLimits(
        c.get(IDLE_TIMEOUT),
        c.get(THREADS),
        c.get(QUEUE),
        c.get(MAX_CONNECTIONS),
        c.get(WRITES_PER_MINUTE),
        c.get(SIGN_INS_PER_MINUTE),
        c.get(SECURE_COOKIE),
        java.util.Set.copyOf(c.get(TRUSTED_PROXIES)));
  }

  private static java.util.function.Function<Integer, Optional<String>> positive() {
    return n -> n < 1 ? Optional.of("must be at least 1") : Optional.empty();
  }
}
