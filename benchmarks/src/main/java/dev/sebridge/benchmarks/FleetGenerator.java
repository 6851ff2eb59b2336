package dev.sebridge.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.track.TransitionType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The envelopes of a large fleet, as its agents would write them: every VM a heartbeat every 60 s
 * (spread evenly), and about 2 % of the VMs in maintenance at any time, in events of 1 to 50 VMs
 * (25.5 on average) that go Scheduled, Started, Completed and are replaced by new ones: 150
 * transitions a second at 100,000 VMs. Each event moves on by its own clock, 10 to 30 s after its
 * last step ({@link #maintenanceTick}); or all of them at once every 20 s ({@link
 * #maintenanceWave}), 2,000 and 4,000 transitions alternately at 100,000 VMs.
 */
final class FleetGenerator implements AutoCloseable {
  static final Duration HEARTBEAT = Duration.ofSeconds(60);

  private final List<VmIdentity> vms = new ArrayList<>();
  private final AgentEnvelopes agents = new AgentEnvelopes(Clock.systemUTC());

  /** Where envelopes go: the fleet's envelopes topic, keyed by vmId (a test's list). */
  interface Output extends AutoCloseable {
    void send(String vmId, byte[] envelope);

    void flush();

    @Override
    void close();
  }

  private final Output out;
  private final Random random = new Random(19);
  private final List<Event> events = new ArrayList<>();
  private final Set<Integer> busy = new HashSet<>();
  private final int reserved;

  /** The size of the next event to start, drawn when the one before started. */
  private int nextSize;

  final AtomicLong sent = new AtomicLong();
  private int nextHeartbeat;

  private static final class Event {
    final String id = UUID.randomUUID().toString().toUpperCase();
    final List<Integer> vms;
    int stage;
    long dueNanos;

    Event(List<Integer> vms) {
      this.vms = vms;
    }
  }

  /**
   * @param count VMs in the fleet
   * @param reserved the last {@code reserved} VMs never get random maintenance (a test event uses
   *     them)
   */
  FleetGenerator(String bootstrap, String topic, int count, int reserved) {
    this(kafka(bootstrap, topic), count, reserved);
  }

  FleetGenerator(Output out, int count, int reserved) {
    if (count - reserved < Math.max(1, count / 50)) {
      throw new IllegalArgumentException(
          count + " VMs with " + reserved + " reserved leave too few for 2 % in maintenance");
    }
    this.out = out;
    this.reserved = reserved;
    for (int i = 0; i < count; i++) {
      vms.add(
          new VmIdentity(
              String.format("00000000-0000-4000-8000-%012d", i),
              "vm-" + i,
              "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-"
                  + (i % 50)
                  + "/providers/Microsoft.Compute/virtualMachines/vm-"
                  + i,
              "00000000-0000-0000-0000-000000000000",
              "rg-" + (i % 50),
              "westeurope",
              Integer.toString(i % 3 + 1),
              i % 4 == 0 ? null : "vmss-" + (i % 20),
              "Linux"));
    }
    nextSize = eventSize();
  }

  private static Output kafka(String bootstrap, String topic) {
    KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap, "acks", "all", "linger.ms", "5"),
            new StringSerializer(),
            new ByteArraySerializer());
    return new Output() {
      @Override
      public void send(String vmId, byte[] envelope) {
        producer.send(new ProducerRecord<>(topic, vmId, envelope));
      }

      @Override
      public void flush() {
        producer.flush();
      }

      @Override
      public void close() {
        producer.close();
      }
    };
  }

  List<VmIdentity> vms() {
    return vms;
  }

  /** One heartbeat from every VM, as fast as the producer takes them. */
  void heartbeatAll() {
    for (VmIdentity vm : vms) {
      send(vm, agents.heartbeat(vm, HEARTBEAT));
    }
    out.flush();
  }

  /** The heartbeats due in one tick of {@code tick} (all VMs once per minute, evenly spread). */
  void heartbeatTick(Duration tick) {
    int perTick = (int) Math.max(1, vms.size() * tick.toMillis() / HEARTBEAT.toMillis());
    for (int i = 0; i < perTick; i++) {
      VmIdentity vm = vms.get(nextHeartbeat);
      nextHeartbeat = (nextHeartbeat + 1) % vms.size();
      send(vm, agents.heartbeat(vm, HEARTBEAT));
    }
  }

  /**
   * Moves on each event that is due (10 to 30 s after its last step, 20 s on average), and starts
   * new ones while 2 % of the fleet is not in maintenance.
   */
  void maintenanceTick() {
    maintenanceTick(System.nanoTime());
  }

  void maintenanceTick(long nowNanos) {
    step(e -> e.dueNanos <= nowNanos, nowNanos);
  }

  /** Moves every event one step at once, and starts new ones while 2 % is not in maintenance. */
  void maintenanceWave() {
    step(e -> true, System.nanoTime());
  }

  /** Events open now. */
  int openEvents() {
    return events.size();
  }

  /** VMs in maintenance now. */
  int inMaintenance() {
    return busy.size();
  }

  private void step(java.util.function.Predicate<Event> due, long now) {
    for (Event e : events.stream().filter(due).toList()) {
      e.stage++;
      TransitionType t = e.stage == 1 ? TransitionType.STARTED : TransitionType.COMPLETED;
      transition(e.id, e.vms, t, "Started");
      if (t == TransitionType.COMPLETED) {
        busy.removeAll(e.vms);
        events.remove(e);
      } else {
        e.dueNanos = now + nextStepNanos();
      }
    }
    // Each event's size is drawn before it starts (1 to 50 VMs, 25.5 on average) and it waits for
    // that many VMs to be free: sized by the VMs just freed, the events would dwindle to a VM or
    // two when they move on one by one.
    int target = vms.size() / 50;
    while (busy.size() + nextSize <= target) {
      List<Integer> members = new ArrayList<>();
      while (members.size() < nextSize) {
        int v = random.nextInt(vms.size() - reserved);
        if (busy.add(v)) {
          members.add(v);
        }
      }
      Event e = new Event(members);
      e.dueNanos = now + nextStepNanos();
      transition(e.id, members, TransitionType.SCHEDULED, "Scheduled");
      events.add(e);
      nextSize = eventSize();
    }
  }

  /**
   * {@code n} one-VM events from the {@code from}th, each scheduled, started and completed at once
   * (a host update's shape), of VMs not in maintenance now: the closed events a day of maintenance
   * leaves in the views.
   */
  void closedHistory(int from, int n) {
    for (int i = from; i < from + n; i++) {
      int v;
      do {
        v = random.nextInt(vms.size() - reserved);
      } while (busy.contains(v));
      String id = String.format("%08X-0000-4000-8000-%012X", i, (long) i * 7919);
      List<Integer> one = List.of(v);
      transition(id, one, TransitionType.SCHEDULED, "Scheduled");
      transition(id, one, TransitionType.STARTED, "Started");
      transition(id, one, TransitionType.COMPLETED, "Started");
    }
    out.flush();
  }

  private int eventSize() {
    return 1 + random.nextInt(Math.min(50, Math.max(1, vms.size() / 50)));
  }

  private long nextStepNanos() {
    return Duration.ofSeconds(10).toNanos() + (long) (random.nextDouble() * 20e9);
  }

  /** Every VM in {@code members} reports the event's transition. */
  void transition(String eventId, List<Integer> members, TransitionType t, String status) {
    List<String> names = members.stream().map(i -> vms.get(i).name()).toList();
    ObjectNode imds =
        AgentEnvelopes.imdsEvent(
            eventId,
            "Reboot",
            status,
            names,
            status.equals("Scheduled") ? Instant.now().plus(Duration.ofMinutes(15)) : null);
    for (int i : members) {
      send(vms.get(i), agents.transition(t, vms.get(i), imds, false));
    }
  }

  /** The reserved VMs (the last ones), for an event of their own. */
  List<Integer> reservedVms() {
    List<Integer> r = new ArrayList<>();
    for (int i = vms.size() - reserved; i < vms.size(); i++) {
      r.add(i);
    }
    return Collections.unmodifiableList(r);
  }

  private void send(VmIdentity vm, byte[] envelope) {
    out.send(vm.vmId(), envelope);
    sent.incrementAndGet();
  }

  void flush() {
    out.flush();
  }

  @Override
  public void close() {
    out.close();
  }
}
