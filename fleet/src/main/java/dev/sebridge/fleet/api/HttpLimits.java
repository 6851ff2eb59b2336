package dev.sebridge.fleet.api;

import java.time.Duration;

/**
 * The HTTP server's bounds (docs/fleet.md, "The HTTP server"; keys {@code fleet.http.*}).
 *
 * @param idleTimeout a connection idle this long is closed (a slow or stalled body included)
 * @param threads threads answering requests once their body has arrived
 * @param queue requests waiting for those threads; past this, 503
 * @param maxConnections connections open at once
 * @param writesPerMinute writes (approvals, rollouts, actions) per principal and minute
 * @param signInsPerMinute page sign-ins per client address and minute
 * @param secureCookie whether the page's session cookie is marked Secure
 * @param trustedProxies addresses of the proxies in front, whose {@code X-Forwarded-For} names the
 *     client
 */
public record HttpLimits(
    Duration idleTimeout,
    int threads,
    int queue,
    int maxConnections,
    int writesPerMinute,
    int signInsPerMinute,
    boolean secureCookie,
    java.util.Set<String> trustedProxies) {

  public HttpLimits {
    trustedProxies = canonical(trustedProxies);
  }

  /**
   * Addresses as the server compares them ({@link HttpCall#canonical}): {@code fd00::4} and the
   * {@code [fd00:0:0:0:0:0:0:4]} Jetty writes are the same proxy.
   */
  static java.util.Set<String> canonical(java.util.Set<String> addresses) {
    return addresses.stream()
        .map(HttpCall::canonical)
        .collect(java.util.stream.Collectors.toUnmodifiableSet());
  }

  /**
   * Threads for requests without a principal (the sign-in form, its assets, sign-ins): an eighth of
   * {@link #threads}, at least one. A pool of their own, so that no number of them takes a thread
   * from the API or a signed-in page.
   */
  public int anonymousThreads() {
    return Math.max(1, threads / 8);
  }

  /**
   * Requests without a principal waiting for those threads: an eighth of {@link #queue}, at least
   * 8.
   */
  public int anonymousQueue() {
    return Math.max(8, queue / 8);
  }

  /** The defaults of the {@code fleet.http.*} keys. */
  public static HttpLimits defaults() {
    return new HttpLimits(Duration.ofSeconds(30), 32, 256, 4096, 120, 10, true, java.util.Set.of());
  }

  public HttpLimits withIdleTimeout(Duration d) {
    return new HttpLimits(
        d,
        threads,
        queue,
        maxConnections,
        writesPerMinute,
        signInsPerMinute,
        secureCookie,
        trustedProxies);
  }

  public HttpLimits withThreads(int n, int q) {
    return new HttpLimits(
        idleTimeout,
        n,
        q,
        maxConnections,
        writesPerMinute,
        signInsPerMinute,
        secureCookie,
        trustedProxies);
  }

  public HttpLimits withWritesPerMinute(int n) {
    return new HttpLimits(
        idleTimeout,
        threads,
        queue,
        maxConnections,
        n,
        signInsPerMinute,
        secureCookie,
        trustedProxies);
  }

  public HttpLimits withSecureCookie(boolean secure) {
    return new HttpLimits(
        idleTimeout,
        threads,
        queue,
        maxConnections,
        writesPerMinute,
        signInsPerMinute,
        secure,
        trustedProxies);
  }
}
