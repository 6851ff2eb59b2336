package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.fleet.streams.JsonSerde;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One request and its answer, as the routes see them: the headers, the body once {@link
 * FleetServer} has read it (never before the request was let through, see {@link Route#admit}), and
 * one answer. Answering completes the exchange asynchronously; no thread waits for a slow client to
 * take the bytes.
 */
public final class HttpCall {
  private final Request request;
  private final Response response;
  private final Callback callback;
  private final AtomicBoolean answered = new AtomicBoolean();
  private volatile boolean streaming;
  private volatile byte[] body = new byte[0];
  private volatile boolean bodyRead;

  HttpCall(Request request, Response response, Callback callback) {
    this.request = request;
    this.response = response;
    this.callback = callback;
  }

  /** The method as sent. */
  public String rawMethod() {
    return request.getMethod();
  }

  /** The method a route matches on: HEAD is answered as GET is, without the body. */
  public String method() {
    String m = request.getMethod();
    return m.equals("HEAD") ? "GET" : m;
  }

  /** The path as sent (percent-encoded): each route decodes the segments it reads, once. */
  public String rawPath() {
    String p = request.getHttpURI().getPath();
    return p == null || p.isEmpty() ? "/" : p;
  }

  public String rawQuery() {
    return request.getHttpURI().getQuery();
  }

  /** The first value of a request header, or null. */
  public String header(String name) {
    return request.getHeaders().get(name);
  }

  public List<String> headers(String name) {
    return request.getHeaders().getValuesList(name);
  }

  /** The value of the request's first cookie of this name that has one. */
  public Optional<String> cookie(String name) {
    for (String h : headers("Cookie")) {
      for (String part : h.split(";")) {
        String p = part.trim();
        if (p.startsWith(name + "=") && p.length() > name.length() + 1) {
          return Optional.of(p.substring(name.length() + 1));
        }
      }
    }
    return Optional.empty();
  }

  public String remoteAddress() {
    return Request.getRemoteAddr(request);
  }

  /**
   * The client's address: the connection's, or, when the connection comes from one of {@code
   * trustedProxies} (the load balancer in front), the last address of {@code X-Forwarded-For},
   * which that proxy appended. A client's own {@code X-Forwarded-For} is never believed.
   */
  public String clientAddress(java.util.Set<String> trustedProxies) {
    String remote = remoteAddress();
    if (!trustedProxies.contains(canonical(remote))) {
      return remote;
    }
    List<String> forwarded = headers("X-Forwarded-For");
    if (forwarded.isEmpty()) {
      return remote;
    }
    String last = forwarded.get(forwarded.size() - 1);
    String[] hops = last.split(",");
    String client = withoutPort(hops[hops.length - 1].trim());
    return client.isEmpty() ? remote : client;
  }

  /**
   * One hop of {@code X-Forwarded-For} as an address: the port some proxies add left out
   * (Application Gateway writes {@code IP:port}, a new port for each connection of one client).
   */
  static String withoutPort(String hop) {
    if (hop.startsWith("[")) {
      int end = hop.indexOf(']');
      return end > 0 ? hop.substring(1, end) : hop;
    }
    int colon = hop.indexOf(':');
    return colon > 0 && colon == hop.lastIndexOf(':') ? hop.substring(0, colon) : hop;
  }

  /**
   * An address as written (a port and IPv6 brackets left out) in one form: an IP literal as Java
   * writes it ({@code fd00::4} and {@code [fd00:0:0:0:0:0:0:4]} alike), anything else as it is.
   * Nothing is looked up.
   */
  static String canonical(String written) {
    String address = withoutPort(written.trim());
    boolean v4 =
        address.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")
            && java.util.Arrays.stream(address.split("\\."))
                .allMatch(o -> Integer.parseInt(o) <= 255); // 999.1.1.1 would be looked up
    return (v4 ? ip(address) : ipv6(address))
        .map(java.net.InetAddress::getHostAddress)
        .orElse(address);
  }

  /**
   * What a client's sign-ins are counted by: its IPv4 address, or its IPv6 address's /64 (a client
   * is given a whole /64, and can send from any address in it). An address that is not one is
   * counted as written.
   */
  public static String rateKey(String written) {
    String address = withoutPort(written); // also Jetty's [IPv6] of a direct client
    return ipv6(address)
        .map(
            a ->
                a instanceof java.net.Inet4Address
                    ? a.getHostAddress()
                    : java.util.HexFormat.of().formatHex(a.getAddress(), 0, 8) + "::/64")
        .orElse(address);
  }

  /**
   * An IPv6 literal (or an IPv4-mapped one): ':' in it, hex digits, ':' and '.' only, starting with
   * a hex digit or ':', so Java reads it as an address and never looks it up (an invalid one
   * throws: empty).
   */
  private static java.util.Optional<java.net.InetAddress> ipv6(String address) {
    return address.indexOf(':') >= 0 && address.matches("[0-9A-Fa-f:][0-9A-Fa-f:.]{1,44}")
        ? ip(address)
        : java.util.Optional.empty();
  }

  /** A literal checked to be one, read without a lookup; empty when Java refuses it. */
  private static java.util.Optional<java.net.InetAddress> ip(String literal) {
    try {
      return java.util.Optional.of(java.net.InetAddress.getByName(literal));
    } catch (java.net.UnknownHostException e) {
      return java.util.Optional.empty();
    }
  }

  /** Whether the answer is a live stream (see {@link #stream}). */
  boolean streaming() {
    return streaming;
  }

  /** The request's declared length, or -1 when it is sent in chunks. */
  long declaredLength() {
    return request.getLength();
  }

  Request request() {
    return request;
  }

  /** The body, read in full (at most {@link FleetServer#MAX_BODY}) before any route ran. */
  public byte[] body() {
    return body;
  }

  void body(byte[] b) {
    this.body = b;
    this.bodyRead = true;
  }

  public HttpCall header(String name, String value) {
    response.getHeaders().put(name, value);
    return this;
  }

  public HttpCall addHeader(String name, String value) {
    response.getHeaders().add(name, value);
    return this;
  }

  public boolean answered() {
    return answered.get();
  }

  /** Answers with a JSON body. */
  public void json(int status, JsonNode body) throws IOException {
    send(status, JsonSerde.JSON.writeValueAsBytes(body), "application/json");
  }

  /** Answers with a body of this type (HEAD: the headers a GET would get, and no body). */
  public void send(int status, byte[] body, String contentType) {
    if (!answered.compareAndSet(false, true)) {
      throw new IllegalStateException("answered twice: " + rawMethod() + " " + rawPath());
    }
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    if (!bodyRead
        && (request.getLength() > 0
            || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING))) {
      // Answered before its body was read (refused, or its body failed): the connection cannot
      // carry another request, and the client must be told, or it reuses a socket Jetty closes.
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
    boolean head = request.getMethod().equals("HEAD");
    response.write(true, head ? null : ByteBuffer.wrap(body), callback);
  }

  /** Answers 303 See Other. */
  public void redirect(String to) {
    header("Location", to);
    send(303, new byte[0], "text/plain; charset=utf-8");
  }

  /**
   * Keeps the answer open for a stream of chunks (Server-Sent Events): status 200, this type, and
   * no length. The exchange ends when the stream is {@linkplain Stream#end ended} or a write fails.
   */
  public Stream stream(String contentType) {
    if (!answered.compareAndSet(false, true)) {
      throw new IllegalStateException("answered twice: " + rawMethod() + " " + rawPath());
    }
    streaming = true;
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("X-Accel-Buffering", "no");
    return new Stream();
  }

  /** An open answer written chunk by chunk, without a thread waiting on the client. */
  public final class Stream {
    private final AtomicBoolean ended = new AtomicBoolean();

    private Stream() {}

    /** Writes one chunk; {@code done} gets null once it is written, or why it could not be. */
    public void write(String chunk, Consumer<Throwable> done) {
      response.write(
          false,
          ByteBuffer.wrap(chunk.getBytes(StandardCharsets.UTF_8)),
          Callback.from(() -> done.accept(null), done::accept));
    }

    /** Ends the answer: normally, or (a failed write) as failed. */
    public void end(Throwable failure) {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      if (failure == null) {
        response.write(true, null, callback);
      } else {
        callback.failed(failure);
      }
    }
  }
}
