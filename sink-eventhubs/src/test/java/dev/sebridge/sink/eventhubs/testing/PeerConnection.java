package dev.sebridge.sink.eventhubs.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.DescribedType;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection, served by its own thread with proton-j's engine: socket bytes in, events
 * handled, partitions pumped to receivers, bytes out. The socket read times out every few
 * milliseconds so that events stored by other connections reach this one's receivers promptly.
 */
final class PeerConnection implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(PeerConnection.class);
  private static final Symbol STRING_FILTER = Symbol.valueOf("apache.org:selector-filter:string");
  private static final Pattern FILTER =
      Pattern.compile("amqp\\.annotation\\.(x-opt-[a-z-]+) >(=?) '(.*)'");
  private static final Pattern SEND_ADDRESS = Pattern.compile("([^/]+)(?:/Partitions/([^/]+))?");
  private static final Pattern RECEIVE_ADDRESS =
      Pattern.compile("([^/]+)/ConsumerGroups/([^/]+)/Partitions/([^/]+)");
  private static final Symbol UNAUTHORIZED = Symbol.valueOf("amqp:unauthorized-access");
  private static final Symbol QUOTA_EXCEEDED = Symbol.valueOf("amqp:resource-limit-exceeded");
  private static final Symbol MESSAGE_SIZE_EXCEEDED =
      Symbol.valueOf("amqp:link:message-size-exceeded");

  private final EventHubsTestPeer peer;
  private final Socket socket;
  private final Transport transport = Proton.transport();
  private final Connection connection = Proton.connection();
  private final Collector collector = Proton.collector();
  private final Set<String> audiences = new HashSet<>();
  private final Map<String, Sender> replyLinks = new HashMap<>();
  private final List<Reader> readers = new ArrayList<>();
  private final Map<Link, Partition> fixedPartition = new HashMap<>();
  private final Map<Link, EventHubsTestPeer.Hub> linkHub = new HashMap<>();
  private long tags;
  private volatile boolean aborted;

  /** A receiver link of the client: a cursor in one partition. */
  private record Reader(Sender link, Partition partition, String consumerGroup, int[] cursor) {}

  PeerConnection(EventHubsTestPeer peer, Socket socket) {
    this.peer = peer;
    this.socket = socket;
  }

  /** Drops the connection as a network failure would. */
  void abort() {
    aborted = true;
    try {
      socket.close();
    } catch (IOException e) {
      // closed anyway
    }
  }

  @Override
  public void run() {
    Sasl sasl = transport.sasl();
    sasl.server();
    sasl.setMechanisms("ANONYMOUS");
    sasl.done(Sasl.SaslOutcome.PN_SASL_OK);
    connection.collect(collector);
    transport.bind(connection);
    byte[] buf = new byte[64 * 1024];
    try (socket) {
      socket.setSoTimeout(5);
      socket.setTcpNoDelay(true);
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      boolean open = true;
      while (open && !aborted) {
        int n;
        try {
          n = in.read(buf);
        } catch (SocketTimeoutException e) {
          n = 0;
        }
        if (n < 0) {
          transport.close_tail();
        } else {
          int off = 0;
          while (off < n) {
            int capacity = transport.capacity();
            if (capacity <= 0) {
              break;
            }
            int k = Math.min(capacity, n - off);
            transport.tail().put(buf, off, k);
            transport.process();
            off += k;
          }
        }
        handleEvents();
        pump();
        transport.tick(System.currentTimeMillis());
        handleEvents();
        open = flush(out) && !(n < 0 && transport.pending() <= 0);
      }
    } catch (IOException e) {
      if (!aborted) {
        LOG.debug("connection ended: {}", e.toString());
      }
    } catch (RuntimeException e) {
      LOG.error("Event Hubs test peer: connection failed", e);
    } finally {
      releaseReaders();
      peer.connectionEnded(this);
    }
  }

  private boolean flush(OutputStream out) throws IOException {
    while (true) {
      int pending = transport.pending();
      if (pending < 0) {
        return false; // output closed
      }
      if (pending == 0) {
        out.flush();
        return true;
      }
      ByteBuffer head = transport.head();
      byte[] chunk = new byte[head.remaining()];
      head.get(chunk);
      out.write(chunk);
      transport.pop(chunk.length);
    }
  }

  private void handleEvents() {
    for (Event e = collector.peek(); e != null; e = collector.peek()) {
      try {
        handle(e);
      } finally {
        collector.pop();
      }
    }
  }

  private void handle(Event e) {
    switch (e.getType()) {
      case CONNECTION_REMOTE_OPEN -> {
        connection.setContainer("sebridge-eventhubs-test-peer");
        connection.open();
      }
      case CONNECTION_REMOTE_CLOSE -> connection.close();
      case SESSION_REMOTE_OPEN -> {
        if (e.getSession().getLocalState() == EndpointState.UNINITIALIZED) {
          e.getSession().open();
        }
      }
      case SESSION_REMOTE_CLOSE -> e.getSession().close();
      case LINK_REMOTE_OPEN -> {
        if (e.getLink().getLocalState() == EndpointState.UNINITIALIZED) {
          onLinkOpen(e.getLink());
        }
      }
      case LINK_REMOTE_CLOSE, LINK_REMOTE_DETACH -> {
        Link l = e.getLink();
        forget(l);
        if (l.getLocalState() != EndpointState.CLOSED) {
          l.close();
        }
      }
      case DELIVERY -> {
        Delivery d = e.getDelivery();
        if (d.getLink() instanceof Receiver r) {
          if (d.isReadable() && !d.isPartial()) {
            onMessage(r, d);
          }
        } else if (d.remotelySettled() || d.getRemoteState() != null) {
          d.settle();
        }
      }
      default -> {
        // flow is handled by pump(); other events need nothing
      }
    }
  }

  // ---------------------------------------------------------------- links

  private void onLinkOpen(Link link) {
    Source source = (Source) link.getRemoteSource();
    Target target = (Target) link.getRemoteTarget();
    link.setSource(source);
    link.setTarget(target);
    if (link instanceof Receiver r) {
      String address = target == null ? "" : target.getAddress();
      if (address.equals("$cbs") || address.equals("$management")) {
        r.open();
        r.flow(100);
        return;
      }
      Matcher m = SEND_ADDRESS.matcher(address);
      EventHubsTestPeer.Hub hub = m.matches() ? peer.findHub(m.group(1)) : null;
      if (hub == null) {
        refuse(link, AmqpError.NOT_FOUND, "no event hub at '" + address + "'");
        return;
      }
      if (!authorized(hub)) {
        refuse(link, UNAUTHORIZED, "put a token for " + hub.name + " on $cbs first");
        return;
      }
      Partition fixed = null;
      if (m.group(2) != null) {
        fixed = hub.partition(m.group(2));
        if (fixed == null) {
          refuse(link, AmqpError.NOT_FOUND, "no partition " + m.group(2) + " in " + hub.name);
          return;
        }
        fixedPartition.put(link, fixed);
      }
      linkHub.put(link, hub);
      r.setMaxMessageSize(UnsignedLong.valueOf(peer.maxMessageSize()));
      r.open();
      r.flow(300);
      return;
    }
    Sender s = (Sender) link;
    String address = source == null ? "" : source.getAddress();
    if (address.equals("$cbs") || address.equals("$management")) {
      replyLinks.put(target.getAddress(), s);
      s.open();
      return;
    }
    Matcher m = RECEIVE_ADDRESS.matcher(address);
    EventHubsTestPeer.Hub hub = m.matches() ? peer.findHub(m.group(1)) : null;
    Partition partition = hub == null ? null : hub.partition(m.group(3));
    if (partition == null) {
      refuse(link, AmqpError.NOT_FOUND, "no event hub partition at '" + address + "'");
      return;
    }
    if (!hub.consumerGroups.contains(m.group(2))) {
      refuse(link, AmqpError.NOT_FOUND, "no consumer group " + m.group(2) + " in " + hub.name);
      return;
    }
    if (!authorized(hub)) {
      refuse(link, UNAUTHORIZED, "put a token for " + hub.name + " on $cbs first");
      return;
    }
    Predicate<StoredEvent> from;
    try {
      from = startFilter(source);
    } catch (IllegalArgumentException e) {
      refuse(link, AmqpError.INVALID_FIELD, e.getMessage());
      return;
    }
    String slot = hub.name + "/" + m.group(2) + "/" + partition.id;
    if (!peer.acquireReader(slot)) {
      refuse(
          link,
          QUOTA_EXCEEDED,
          "Exceeded the maximum number of allowed receivers per partition in a consumer group"
              + " which is "
              + EventHubsTestPeer.READERS_PER_PARTITION);
      return;
    }
    readers.add(new Reader(s, partition, m.group(2), new int[] {partition.firstIndex(from)}));
    s.open();
  }

  /** Attaches without a terminus and detaches at once with the error, as the service does. */
  private void refuse(Link link, Symbol condition, String description) {
    LOG.info("refusing link {}: {} {}", link.getName(), condition, description);
    if (link instanceof Receiver) {
      link.setTarget(null);
    } else {
      link.setSource(null);
    }
    link.open();
    link.setCondition(new ErrorCondition(condition, description));
    link.close();
  }

  private boolean authorized(EventHubsTestPeer.Hub hub) {
    for (String a : audiences) {
      if (a.endsWith("/" + hub.name) || a.contains("/" + hub.name + "/")) {
        return true;
      }
    }
    return false;
  }

  private void forget(Link l) {
    fixedPartition.remove(l);
    linkHub.remove(l);
    readers.removeIf(
        r -> {
          if (r.link() == l) {
            release(r);
            return true;
          }
          return false;
        });
    replyLinks.values().remove(l);
  }

  private void releaseReaders() {
    readers.forEach(this::release);
    readers.clear();
  }

  private void release(Reader r) {
    peer.releaseReader(r.partition().hub + "/" + r.consumerGroup() + "/" + r.partition().id);
  }

  /** The start position of a receiver, from its selector filter (none: from the beginning). */
  static Predicate<StoredEvent> startFilter(Source source) {
    Map<Symbol, Object> filter = source.getFilter();
    Object f = filter == null ? null : filter.get(STRING_FILTER);
    if (f == null) {
      return e -> true;
    }
    String expression =
        f instanceof DescribedType d ? String.valueOf(d.getDescribed()) : String.valueOf(f);
    Matcher m = FILTER.matcher(expression);
    if (!m.matches()) {
      throw new IllegalArgumentException("unsupported filter: " + expression);
    }
    boolean inclusive = !m.group(2).isEmpty();
    String value = m.group(3);
    switch (m.group(1)) {
      case "x-opt-offset" -> {
        if (value.equals("@latest")) {
          return e -> false;
        }
        long offset = Long.parseLong(value);
        return e ->
            inclusive ? Long.parseLong(e.offset()) >= offset : Long.parseLong(e.offset()) > offset;
      }
      case "x-opt-sequence-number" -> {
        long seq = Long.parseLong(value);
        return e -> inclusive ? e.sequenceNumber() >= seq : e.sequenceNumber() > seq;
      }
      case "x-opt-enqueued-time" -> {
        long ms = Long.parseLong(value);
        return e ->
            inclusive
                ? e.enqueuedTime().toEpochMilli() >= ms
                : e.enqueuedTime().toEpochMilli() > ms;
      }
      default -> throw new IllegalArgumentException("unsupported filter: " + expression);
    }
  }

  /** Sends stored events to every reader with credit. */
  private void pump() {
    if (peer.deliveriesHeld()) {
      return;
    }
    for (Reader r : readers) {
      Sender s = r.link();
      if (s.getLocalState() != EndpointState.ACTIVE) {
        continue;
      }
      while (s.getCredit() > 0 && r.cursor()[0] < r.partition().size()) {
        StoredEvent e = r.partition().get(r.cursor()[0]++);
        byte[] bytes = e.delivery();
        s.delivery(tag());
        s.send(bytes, 0, bytes.length);
        s.advance();
      }
    }
  }

  private byte[] tag() {
    return Long.toString(tags++).getBytes(StandardCharsets.US_ASCII);
  }

  // ---------------------------------------------------------------- messages

  private void onMessage(Receiver r, Delivery d) {
    byte[] bytes = new byte[d.pending()];
    int n = r.recv(bytes, 0, bytes.length);
    r.advance();
    String address = ((Target) r.getRemoteTarget()).getAddress();
    if (address.equals("$cbs") || address.equals("$management")) {
      Message request = Proton.message();
      request.decode(bytes, 0, n);
      Message response = address.equals("$cbs") ? putToken(request) : management(request);
      response.setCorrelationId(request.getMessageId());
      d.disposition(Accepted.getInstance());
      d.settle();
      r.flow(1);
      reply(request.getReplyTo(), response);
      return;
    }
    if (n > peer.maxMessageSize()) {
      Rejected rejected = new Rejected();
      rejected.setError(
          new ErrorCondition(
              MESSAGE_SIZE_EXCEEDED,
              "The received message (size "
                  + n
                  + " bytes) exceeds the limit of "
                  + peer.maxMessageSize()
                  + " bytes"));
      d.disposition(rejected);
      d.settle();
      r.flow(1);
      return;
    }
    List<byte[]> messages;
    String key;
    if (d.getMessageFormat() == (int) Amqp.BATCH_FORMAT) {
      Amqp.Batch batch = Amqp.splitBatch(bytes);
      messages = batch.inner();
      key = batch.partitionKey();
    } else {
      Message m = Proton.message();
      m.decode(bytes, 0, n);
      messages = List.of(bytes);
      key = Amqp.partitionKey(m);
    }
    Partition p = fixedPartition.get(r);
    if (p == null) {
      p = linkHub.get(r).route(key);
    }
    p.append(messages, key);
    peer.transferred(new EventHubsTestPeer.Transfer(p.hub, p.id, n, messages.size()));
    d.disposition(Accepted.getInstance());
    d.settle();
    r.flow(1);
  }

  private void reply(String replyTo, Message response) {
    Sender s = replyLinks.get(replyTo);
    if (s == null) {
      LOG.warn("no reply link for {}", replyTo);
      return;
    }
    byte[] bytes = Amqp.encode(response);
    Delivery out = s.delivery(tag());
    s.send(bytes, 0, bytes.length);
    s.advance();
    if (s.getRemoteSenderSettleMode() == SenderSettleMode.SETTLED) {
      out.settle();
    }
  }

  private Message putToken(Message request) {
    Map<String, Object> props = props(request);
    String type = String.valueOf(props.get("type"));
    String audience = String.valueOf(props.get("name"));
    String token =
        request.getBody() instanceof AmqpValue v && v.getValue() instanceof String t ? t : null;
    if (!"put-token".equals(props.get("operation"))) {
      return status(400, "unsupported operation " + props.get("operation"), null);
    }
    if (!peer.acceptToken(type, audience, token)) {
      return status(401, "InvalidSignature: the token has an invalid signature", null);
    }
    audiences.add(audience);
    return status(202, "Accepted", null);
  }

  private Message management(Message request) {
    Map<String, Object> props = props(request);
    if (!"READ".equals(props.get("operation"))) {
      return status(400, "unsupported operation " + props.get("operation"), null);
    }
    String token = String.valueOf(props.get("security_token"));
    EventHubsTestPeer.Hub hub = peer.findHub(String.valueOf(props.get("name")));
    if (hub == null) {
      return status(404, "no event hub " + props.get("name"), null);
    }
    if (props.get("security_token") == null || token.isBlank()) {
      return status(401, "Unauthorized: no security_token", null);
    }
    Map<String, Object> body = new HashMap<>();
    body.put("name", hub.name);
    if ("com.microsoft:eventhub".equals(props.get("type"))) {
      body.put("created_at", Date.from(hub.createdAt));
      body.put("partition_ids", hub.partitions.stream().map(p -> p.id).toArray(String[]::new));
      return status(200, "OK", body);
    }
    if ("com.microsoft:partition".equals(props.get("type"))) {
      if (peer.managementFails()) {
        return status(403, "Forbidden: the test peer refuses management requests", null);
      }
      Partition p = hub.partition(String.valueOf(props.get("partition")));
      if (p == null) {
        return status(404, "no partition " + props.get("partition"), null);
      }
      StoredEvent last = p.last();
      body.put("partition", p.id);
      body.put("begin_sequence_number", last == null ? -1L : 0L);
      body.put("last_enqueued_sequence_number", last == null ? -1L : last.sequenceNumber());
      body.put("last_enqueued_offset", last == null ? "-1" : last.offset());
      body.put(
          "last_enqueued_time_utc", Date.from(last == null ? Instant.EPOCH : last.enqueuedTime()));
      body.put("is_partition_empty", last == null);
      return status(200, "OK", body);
    }
    return status(400, "unsupported type " + props.get("type"), null);
  }

  private static Map<String, Object> props(Message m) {
    ApplicationProperties p = m.getApplicationProperties();
    return p == null || p.getValue() == null ? Map.of() : p.getValue();
  }

  private static Message status(int code, String description, Object body) {
    Message m = Proton.message();
    Map<String, Object> props = new HashMap<>();
    props.put("status-code", code);
    props.put("status-description", description);
    m.setApplicationProperties(new ApplicationProperties(props));
    if (body != null) {
      m.setBody(new AmqpValue(body));
    }
    return m;
  }
}
