package dev.sebridge.sink.eventhubs.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An AMQP 1.0 Event Hubs peer for tests, built on Apache Qpid proton-j (the AMQP engine the Azure
 * client itself uses). The real {@code azure-messaging-eventhubs} client reaches it with the
 * emulator's connection string ({@code UseDevelopmentEmulator=true}: plain AMQP, SASL ANONYMOUS,
 * then claims-based security).
 *
 * <p>What it does, as the service does:
 *
 * <ul>
 *   <li>{@code $cbs} put-token: shared access signatures are verified against {@link #KEY} (a bad
 *       one gets 401); JWTs (managed identity) are accepted and recorded. A link to a hub needs a
 *       token for it first, or it is refused with {@code amqp:unauthorized-access}.
 *   <li>{@code $management} READ of hub and partition properties.
 *   <li>Sender links (to {@code hub} or {@code hub/Partitions/N}) advertise {@link
 *       #maxMessageSize()}; single and batched ({@code 0x80013700}) messages are stored in their
 *       partition, a batch all together; a partition key picks the partition; a message over the
 *       limit is rejected with {@code amqp:link:message-size-exceeded}.
 *   <li>Receiver links ({@code hub/ConsumerGroups/G/Partitions/N}) honour the offset, sequence
 *       number and enqueued-time filters and set {@code x-opt-sequence-number}, {@code
 *       x-opt-offset}, {@code x-opt-enqueued-time} and {@code x-opt-partition-key}. At most {@link
 *       #READERS_PER_PARTITION} readers per partition and consumer group, as in every tier; an
 *       unknown consumer group is not found.
 * </ul>
 *
 * <p>{@link #stop()} drops every connection and refuses new ones (an outage); {@link #start()}
 * brings it back on the same port with its data.
 */
public final class EventHubsTestPeer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventHubsTestPeer.class);

  /** The emulator's well-known key name and key, as in its documented connection string. */
  public static final String KEY_NAME = "RootManageSharedAccessKey";

  public static final String KEY = "SAS_KEY_VALUE";

  /** Concurrent readers allowed per partition and consumer group (all tiers). */
  public static final int READERS_PER_PARTITION = 5;

  private final Map<String, Hub> hubs = new ConcurrentHashMap<>();
  final Set<PeerConnection> connections = ConcurrentHashMap.newKeySet();
  private final List<String> tokens = new CopyOnWriteArrayList<>();
  private final Map<String, Integer> readers = new HashMap<>();
  private volatile int maxMessageSize = 1024 * 1024;
  private volatile boolean held;
  private volatile boolean managementFails;
  private volatile int port;
  private ServerSocket server;
  private Thread acceptor;

  /** Declares a hub with partitions {@code 0..partitions-1} and the {@code $Default} group. */
  public EventHubsTestPeer hub(String name, int partitions, String... consumerGroups) {
    hubs.put(name, new Hub(name, partitions, consumerGroups));
    return this;
  }

  /**
   * While held, the peer stores what is sent and answers management requests, but delivers no event
   * to any reader (an event on the hub that has not reached the client yet).
   */
  public void holdDeliveries(boolean hold) {
    this.held = hold;
  }

  boolean deliveriesHeld() {
    return held;
  }

  /** While set, a partition's properties are refused (403), as a hub that denies the request. */
  public void failManagement(boolean fail) {
    this.managementFails = fail;
  }

  boolean managementFails() {
    return managementFails;
  }

  /** The message size sender links advertise (1 MB by default, as Standard and above). */
  public EventHubsTestPeer maxMessageSize(int bytes) {
    this.maxMessageSize = bytes;
    return this;
  }

  public int maxMessageSize() {
    return maxMessageSize;
  }

  /** Starts listening on loopback: a free port the first time, the same port afterwards. */
  public synchronized EventHubsTestPeer start() {
    if (server != null) {
      return this;
    }
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
      server = s;
      port = s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on port " + port, e);
    }
    ServerSocket s = server;
    acceptor =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try {
                  Socket socket = s.accept();
                  PeerConnection c = new PeerConnection(this, socket);
                  connections.add(c);
                  Thread t = new Thread(c, "eventhubs-peer-conn-" + socket.getPort());
                  t.setDaemon(true);
                  t.start();
                } catch (IOException e) {
                  if (!s.isClosed()) {
                    LOG.warn("accept failed", e);
                  }
                }
              }
            },
            "eventhubs-peer-accept-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
    LOG.info("Event Hubs test peer listening on 127.0.0.1:{}", port);
    return this;
  }

  /** An outage: every connection is dropped and new ones are refused until {@link #start()}. */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    server = null;
    for (PeerConnection c : connections) {
      c.abort();
    }
    connections.clear();
    try {
      acceptor.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info("Event Hubs test peer stopped (port {} refuses connections)", port);
  }

  @Override
  public void close() {
    stop();
  }

  public int port() {
    return port;
  }

  /** The host name clients use; the token audience is {@code amqp://localhost/<hub>}. */
  public String host() {
    return "localhost";
  }

  /** A namespace connection string, as the emulator documents it (add {@code EntityPath}). */
  public String connectionString() {
    return "Endpoint=sb://localhost:"
        + port
        + ";SharedAccessKeyName="
        + KEY_NAME
        + ";SharedAccessKey="
        + KEY
        + ";UseDevelopmentEmulator=true";
  }

  public String connectionString(String hub) {
    return connectionString() + ";EntityPath=" + hub;
  }

  /** Every event stored in a hub, by partition then sequence number. */
  public List<StoredEvent> events(String hub) {
    List<StoredEvent> out = new ArrayList<>();
    for (Partition p : requireHub(hub).partitions) {
      out.addAll(p.snapshot());
    }
    return out;
  }

  /** The tokens clients put on {@code $cbs}, in order (type, audience, token). */
  public List<String> tokens() {
    return List.copyOf(tokens);
  }

  /** One message transfer into a hub (a batch counts once). */
  public record Transfer(String hub, String partitionId, int bytes, int events) {}

  private final List<Transfer> transfers = new CopyOnWriteArrayList<>();

  void transferred(Transfer t) {
    transfers.add(t);
  }

  /** The transfers into a hub, in order. */
  public List<Transfer> transfers(String hub) {
    return transfers.stream().filter(t -> t.hub().equals(hub)).toList();
  }

  /** Connections currently open. */
  public int openConnections() {
    return connections.size();
  }

  Hub requireHub(String name) {
    Hub h = hubs.get(name);
    if (h == null) {
      throw new IllegalArgumentException("no hub " + name);
    }
    return h;
  }

  Hub findHub(String name) {
    return hubs.get(name);
  }

  /** Counts a reader of a partition in a consumer group; false beyond the limit. */
  boolean acquireReader(String slot) {
    synchronized (readers) {
      int now = readers.getOrDefault(slot, 0);
      if (now >= READERS_PER_PARTITION) {
        return false;
      }
      readers.put(slot, now + 1);
      return true;
    }
  }

  void releaseReader(String slot) {
    synchronized (readers) {
      readers.computeIfPresent(slot, (k, v) -> v <= 1 ? null : v - 1);
    }
  }

  /** Readers now open, per {@code hub/consumerGroup/partition}. */
  public Map<String, Integer> readers() {
    synchronized (readers) {
      return Map.copyOf(readers);
    }
  }

  void connectionEnded(PeerConnection c) {
    connections.remove(c);
  }

  /**
   * Checks a put-token: a shared access signature must be signed with {@link #KEY} for this
   * audience and not expired; anything else must be a non-empty JWT.
   */
  boolean acceptToken(String type, String audience, String token) {
    tokens.add(type + " " + audience + " " + token);
    if (token == null || token.isBlank()) {
      return false;
    }
    if (!type.endsWith("sastoken")) {
      return true;
    }
    Map<String, String> parts = new HashMap<>();
    for (String pair : token.replaceFirst("^SharedAccessSignature ", "").split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        parts.put(
            pair.substring(0, eq),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    try {
      String sr = parts.get("sr");
      long se = Long.parseLong(parts.get("se"));
      if (!KEY_NAME.equals(parts.get("skn"))
          || !audience.equals(sr)
          || se < Instant.now().getEpochSecond()) {
        return false;
      }
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      String expected =
          Base64.getEncoder()
              .encodeToString(
                  mac.doFinal(
                      (URLEncoder.encode(sr, StandardCharsets.UTF_8) + "\n" + se)
                          .getBytes(StandardCharsets.UTF_8)));
      return expected.equals(parts.get("sig"));
    } catch (Exception e) {
      return false;
    }
  }

  /** An event hub: partitions and consumer groups. */
  static final class Hub {
    final String name;
    final Instant createdAt = Instant.now();
    final List<Partition> partitions = new ArrayList<>();
    final Set<String> consumerGroups = ConcurrentHashMap.newKeySet();
    private int roundRobin;

    Hub(String name, int partitions, String... consumerGroups) {
      this.name = name;
      for (int i = 0; i < partitions; i++) {
        this.partitions.add(new Partition(name, Integer.toString(i)));
      }
      this.consumerGroups.add("$Default");
      this.consumerGroups.addAll(List.of(consumerGroups));
    }

    Partition partition(String id) {
      for (Partition p : partitions) {
        if (p.id.equals(id)) {
          return p;
        }
      }
      return null;
    }

    /** Where the service would put an event without a partition: key hash, or round robin. */
    synchronized Partition route(String partitionKey) {
      if (partitionKey != null) {
        return partitions.get(Math.floorMod(partitionKey.hashCode(), partitions.size()));
      }
      return partitions.get(roundRobin++ % partitions.size());
    }
  }
}
