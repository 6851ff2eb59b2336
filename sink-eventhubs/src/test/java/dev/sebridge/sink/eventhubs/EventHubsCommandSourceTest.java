package dev.sebridge.sink.eventhubs;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.eventhubs.models.PartitionEvent;
import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.config.Configuration;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestHub;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestPeer;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.ReceivedCommand;
import dev.sebridge.testing.CommandSourceContractTest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Event Hubs command source with the real consumer, and the publisher sebridge approve uses:
 * the shared contract, and what is Event Hubs' own (explicit partitions, consumer groups, a stream
 * that fails and is reopened).
 */
class EventHubsCommandSourceTest extends CommandSourceContractTest {
  static final int PARTITIONS = 4;
  static EventHubsTestHub namespace;

  @BeforeAll
  static void startNamespace() {
    namespace =
        EventHubsTestHub.start(
            Map.of("commands", PARTITIONS, "commands-2", PARTITIONS), "sebridge-0", "sebridge-1");
  }

  @AfterAll
  static void stopNamespace() {
    namespace.close();
  }

  @Override
  protected CommandSource source(String vmId, Clock clock) {
    return source("commands-2", vmId, clock);
  }

  @Override
  protected void publish(String vmId, byte[] payload) {
    EventHubsCommandPublisher.publish(namespace.connectionString(), "commands-2", vmId, payload);
  }

  @Override
  protected int partitions() {
    return PARTITIONS;
  }

  @Override
  protected boolean knowsTheEnd() {
    return true;
  }

  static CommandSource source(String hub, String vmId, Clock clock) {
    Configuration config =
        Configuration.of(
            Map.of("commands.eventhubs.connection-string", namespace.connectionString(hub)));
    return new EventHubsCommandSourceProvider().create(config, vmId, clock);
  }

  static void publish(String hub, String vmId, String text) {
    EventHubsCommandPublisher.publish(
        namespace.connectionString(), hub, vmId, text.getBytes(StandardCharsets.UTF_8));
  }

  static List<String> pollUntil(CommandSource s, int n, Duration timeout) {
    List<String> out = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (out.size() < n && System.nanoTime() < deadline) {
      try {
        for (ReceivedCommand c : s.poll(Duration.ofMillis(500))) {
          out.add(new String(c.payload(), StandardCharsets.UTF_8) + "@" + c.position());
        }
      } catch (RuntimeException e) {
        // as the agent's loop does: try again
      }
    }
    return out;
  }

  /**
   * With no stored position and nothing in the lookback (every event on the partition was enqueued
   * before it), a poll that finds nothing tells the read position: right after the hub's last
   * event. The source then knows it is at the end, so the agent counts no death of a quiet VM
   * there; the next event is read from that position. Before, such a source had no read position at
   * all, and a quiet VM's hard resets counted toward skipping the command that came next.
   */
  @Test
  void aLookbackWithNothingInItTellsWhereReadingStarts() {
    String me = "vm-" + UUID.randomUUID();
    publish("commands", me, "before");
    // The lookback starts now: "before" and every earlier event are out of it.
    Clock now =
        Clock.fixed(
            java.time.Instant.now().plus(EventHubsCommandSource.LOOKBACK),
            java.time.ZoneOffset.UTC);
    try (CommandSource s = source("commands", me, now)) {
      s.open(Optional.empty());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (s.readPosition().isEmpty() && System.nanoTime() < deadline) {
        assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
      }
      assertThat(s.readPosition()).as("told after a poll that found nothing").isPresent();
      long at = s.readPosition().getAsLong();
      assertThat(s.atEnd()).isTrue();
      publish("commands", me, "after");
      List<String> got = pollUntil(s, 1, Duration.ofSeconds(30));
      assertThat(got).singleElement().asString().startsWith("after@");
      long after = Long.parseLong(got.get(0).substring(got.get(0).indexOf('@') + 1));
      assertThat(after).as("read from the position told").isEqualTo(at);
    }
  }

  /**
   * An event in the lookback that has not reached the source yet (the peer holds its deliveries):
   * the hub's last event is in the lookback, so no position is told from it; once the event comes,
   * its own is told before it is handed over. (Told from the hub's last event, the position would
   * be one past the event, and a death handling it would be counted at the wrong record.)
   */
  @Test
  void anEventInTheLookbackThatHasNotArrivedTellsNoPositionBeforeItsOwn() {
    EventHubsTestPeer peer = namespace.peer().orElse(null);
    String me = "vm-" + UUID.randomUUID();
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.open(Optional.empty());
      if (peer != null) {
        peer.holdDeliveries(true);
      }
      try {
        publish("commands", me, "inside");
        // Polls that find nothing (it is held): the hub's last event is in the lookback.
        for (int i = 0; i < 3 && peer != null; i++) {
          assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
          assertThat(s.readPosition()).as("nothing told while it waits on the hub").isEmpty();
        }
      } finally {
        if (peer != null) {
          peer.holdDeliveries(false);
        }
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      List<ReceivedCommand> got = new ArrayList<>();
      while (got.isEmpty() && System.nanoTime() < deadline) {
        java.util.OptionalLong before = s.readPosition();
        List<ReceivedCommand> polled = s.poll(Duration.ofMillis(300));
        if (!polled.isEmpty()) {
          // (other VMs' events in the lookback may come first: the read starts at the first)
          assertThat(before).isPresent();
          assertThat(Long.parseLong(polled.get(0).position()))
              .isGreaterThanOrEqualTo(before.getAsLong());
        }
        got.addAll(polled);
      }
      assertThat(got).hasSize(1);
    }
  }

  /**
   * Not at the end while an event waits on the hub that has not reached the source (the peer holds
   * its deliveries): the hub's last enqueued sequence number says so. At the end once it was read.
   */
  @Test
  void notAtTheEndWhileAnEventWaitsOnTheHub() {
    // The class's own hub. (Against the emulator, which cannot hold, "three" may reach the source
    // first: not at the end all the same, from what the source holds.)
    EventHubsTestPeer peer = namespace.peer().orElse(null);
    String me = "vm-" + UUID.randomUUID();
    publish("commands", me, "one");
    publish("commands", me, "two");
    String one;
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.open(Optional.empty());
      one = pollUntil(s, 1, Duration.ofSeconds(30)).get(0);
    }
    assertThat(one).startsWith("one@");
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.readOneAtATime();
      s.open(Optional.of(one.substring(one.indexOf('@') + 1)));
      assertThat(pollUntil(s, 1, Duration.ofSeconds(30)))
          .singleElement()
          .asString()
          .startsWith("two@");
      assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
      if (peer != null) {
        peer.holdDeliveries(true);
      }
      try {
        publish("commands", me, "three");
        assertThat(s.poll(Duration.ofMillis(200))).as("held").isEmpty();
        assertThat(s.atEnd()).as("three waits on the hub").isFalse();
      } finally {
        if (peer != null) {
          peer.holdDeliveries(false);
        }
      }
      assertThat(pollUntil(s, 1, Duration.ofSeconds(30)))
          .singleElement()
          .asString()
          .startsWith("three@");
      assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
      assertThat(s.atEnd()).as("everything read").isTrue();
    }
  }

  /**
   * A question the hub failed is "cannot tell", and is asked again at the same position only one to
   * two minutes later (the VMs of a hub that failed them all do not ask again at once, nor twice a
   * second each).
   */
  @Test
  void aQuestionTheHubFailedIsAskedAgainOnlyMinutesLater() {
    EventHubsTestPeer peer = namespace.peer().orElse(null);
    org.junit.jupiter.api.Assumptions.assumeTrue(
        peer != null, "only the AMQP test peer can refuse management requests");
    dev.sebridge.testing.MutableClock clock =
        new dev.sebridge.testing.MutableClock(java.time.Instant.now());
    String me = "vm-" + UUID.randomUUID();
    publish("commands", me, "one");
    try (CommandSource s = source("commands", me, clock)) {
      s.open(Optional.empty());
      assertThat(pollUntil(s, 1, Duration.ofSeconds(30))).hasSize(1);
      assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
      peer.failManagement(true);
      try {
        assertThat(s.atEnd()).as("the hub refused").isFalse();
      } finally {
        peer.failManagement(false);
      }
      assertThat(s.atEnd()).as("not asked again at once").isFalse();
      clock.advance(EventHubsCommandSource.END_RETRY.minusSeconds(1));
      assertThat(s.atEnd()).as("nor within a minute").isFalse();
      clock.advance(EventHubsCommandSource.END_RETRY.plusSeconds(2));
      assertThat(s.atEnd()).as("asked again two minutes later").isTrue();
    }
  }

  /**
   * The hub refuses the question whether anything is in the lookback: no position is told, and it
   * is asked again one to two minutes later (an injected clock), not at every poll.
   */
  @Test
  void aLookbackQuestionTheHubFailedIsAskedAgainMinutesLater() {
    EventHubsTestPeer peer = namespace.peer().orElse(null);
    org.junit.jupiter.api.Assumptions.assumeTrue(
        peer != null, "only the AMQP test peer can refuse management requests");
    String me = "vm-" + UUID.randomUUID();
    publish("commands", me, "before");
    dev.sebridge.testing.MutableClock clock =
        new dev.sebridge.testing.MutableClock(
            java.time.Instant.now().plus(EventHubsCommandSource.LOOKBACK));
    try (CommandSource s = source("commands", me, clock)) {
      s.open(Optional.empty());
      peer.failManagement(true);
      try {
        assertThat(s.poll(Duration.ofMillis(200))).isEmpty(); // asked: refused
      } finally {
        peer.failManagement(false);
      }
      assertThat(s.readPosition()).as("the hub refused").isEmpty();
      assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
      assertThat(s.readPosition()).as("not asked again at once").isEmpty();
      clock.advance(EventHubsCommandSource.END_RETRY.minusSeconds(1));
      assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
      assertThat(s.readPosition()).as("nor within a minute").isEmpty();
      clock.advance(EventHubsCommandSource.END_RETRY.plusSeconds(2));
      assertThat(s.poll(Duration.ofMillis(200))).isEmpty();
      assertThat(s.readPosition()).as("asked again two minutes later").isPresent();
    }
  }

  @Test
  void readsOnlyItsOwnCommandsFromItsPartitionAndResumesAfterTheStoredPosition() {
    String me = "vm-" + UUID.randomUUID();
    String sharing = neighbour(me, true);
    String elsewhere = neighbour(me, false);
    publish("commands", me, "one");
    publish("commands", sharing, "not-mine-1");
    publish("commands", elsewhere, "not-mine-2");
    publish("commands", me, "two");
    List<String> got;
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.open(Optional.empty());
      got = pollUntil(s, 2, Duration.ofSeconds(30));
      assertThat(pollUntil(s, 1, Duration.ofSeconds(1))).isEmpty();
    }
    assertThat(got).hasSize(2);
    assertThat(got.get(0)).startsWith("one@");
    assertThat(got.get(1)).startsWith("two@");
    // Every command of `me` went to the partition sebridge approve and the agent agree on.
    assertThat(namespace.peer().map(p -> p.events("commands")).orElse(List.of()))
        .filteredOn(e -> me.equals(e.properties().get("cloudEvents_partitionkey")))
        .allSatisfy(
            e ->
                assertThat(e.partitionId())
                    .isEqualTo(Integer.toString(CommandPartitioning.partitionFor(me, PARTITIONS))));

    String position = got.get(0).substring(got.get(0).indexOf('@') + 1);
    publish("commands", me, "three");
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.open(Optional.of(position));
      List<String> again = pollUntil(s, 2, Duration.ofSeconds(30));
      assertThat(again).hasSize(2);
      assertThat(again.get(0)).startsWith("two@");
      assertThat(again.get(1)).startsWith("three@");
    }
  }

  /**
   * A binary-mode command over AMQP (the attributes as {@code cloudEvents:} properties, the JWS as
   * the body), sent by the real producer client to the VM's partition with an upper-case target:
   * the source hands over the properties, and they make the structured event the verifier reads.
   */
  @Test
  void aBinaryModeCommandOverAmqpArrivesWithItsAttributes() {
    String me = "vm-" + UUID.randomUUID();
    try (com.azure.messaging.eventhubs.EventHubProducerClient producer =
        new com.azure.messaging.eventhubs.EventHubClientBuilder()
            .connectionString(namespace.connectionString(), "commands")
            .buildProducerClient()) {
      List<String> ids = new ArrayList<>();
      producer.getPartitionIds().forEach(ids::add);
      com.azure.messaging.eventhubs.EventData d =
          new com.azure.messaging.eventhubs.EventData("a.b.c".getBytes(StandardCharsets.UTF_8));
      d.setContentType("application/jose");
      d.getProperties().put("cloudEvents:specversion", "1.0");
      d.getProperties().put("cloudEvents:id", "amqp-binary-1");
      d.getProperties().put("cloudEvents:type", "dev.sebridge.command.approve.v1");
      d.getProperties().put("cloudEvents_partitionkey", me.toUpperCase());
      var batch =
          producer.createBatch(
              new com.azure.messaging.eventhubs.models.CreateBatchOptions()
                  .setPartitionId(ids.get(CommandPartitioning.partitionFor(me, ids.size()))));
      assertThat(batch.tryAdd(d)).isTrue();
      producer.send(batch);
    }
    List<ReceivedCommand> got = new ArrayList<>();
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.open(Optional.empty());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (got.isEmpty() && System.nanoTime() < deadline) {
        try {
          got.addAll(s.poll(Duration.ofMillis(500)));
        } catch (RuntimeException e) {
          // as the agent's loop does: try again
        }
      }
    }
    assertThat(got).hasSize(1);
    assertThat(got.get(0).headers())
        .containsEntry("cloudevents:id", "amqp-binary-1")
        .containsEntry("content-type", "application/jose");
    String structured =
        new String(
            dev.sebridge.command.BinaryCloudEvent.structured(got.get(0)), StandardCharsets.UTF_8);
    assertThat(structured).contains("\"id\":\"amqp-binary-1\"").contains("\"data\":\"a.b.c\"");
  }

  /**
   * A delivery of the stream a close disposed, on its way while it closed (the client's threads
   * deliver on their own, and a cancelled subscriber still takes what is already in flight), lands
   * after the close: it must not be read from the stream opened next. Before, the close emptied the
   * one queue all streams shared, and what landed after it was the next stream's first item: an
   * event read again after the reopen, ahead of those before it. (The late event here is built by
   * the test, without a sequence number, which the client cannot be made to deliver late on cue;
   * the source reading it throws, which this test counts as reading it.)
   */
  @Test
  void whatAClosedStreamDeliversLateIsNotReadFromTheNextOne() {
    String me = "vm-" + UUID.randomUUID();
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.open(Optional.empty());
      assertThat(s.poll(Duration.ofMillis(100))).isEmpty(); // the stream is open
      org.reactivestreams.Subscriber<PartitionEvent> old = ((EventHubsCommandSource) s).receiving();
      assertThat(old).isNotNull();
      s.close();
      com.azure.messaging.eventhubs.EventData late =
          new com.azure.messaging.eventhubs.EventData("late".getBytes(StandardCharsets.UTF_8));
      late.getProperties().put(EventHubsCommandSource.TARGET_PROPERTY, me);
      old.onNext(
          new PartitionEvent(
              new com.azure.messaging.eventhubs.models.PartitionContext(
                  "ns", "commands", "$Default", "0"),
              late,
              null));
      s.open(Optional.empty());
      publish("commands", me, "fresh");
      List<String> got = new ArrayList<>();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ZERO)
          .until( // a poll that throws fails the test
              () -> {
                for (ReceivedCommand c : s.poll(Duration.ofMillis(500))) {
                  got.add(new String(c.payload(), StandardCharsets.UTF_8));
                }
                return !got.isEmpty();
              });
      assertThat(got).containsExactly("fresh");
    }
  }

  @Test
  void aFailedStreamIsReopenedAfterTheLastEventSeen() {
    String me = "vm-" + UUID.randomUUID();
    try (CommandSource s = source("commands", me, Clock.systemUTC())) {
      s.open(Optional.empty());
      publish("commands", me, "before");
      assertThat(pollUntil(s, 1, Duration.ofSeconds(30)))
          .singleElement()
          .asString()
          .startsWith("before@");
      namespace.takeDown();
      try {
        // The stream fails once the client gives up (a poll throws); polls go on meanwhile
        // without returning data.
        List<String> meanwhile = new ArrayList<>();
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ZERO)
            .until(
                () -> {
                  try {
                    s.poll(Duration.ofMillis(500))
                        .forEach(
                            c -> meanwhile.add(new String(c.payload(), StandardCharsets.UTF_8)));
                    return false;
                  } catch (IllegalStateException failed) {
                    return true;
                  }
                });
        assertThat(meanwhile).isEmpty();
      } finally {
        namespace.bringBack();
      }
      publish("commands", me, "after");
      assertThat(pollUntil(s, 1, Duration.ofSeconds(60)))
          .singleElement()
          .asString()
          .startsWith("after@");
    }
  }

  @Test
  void aFleetSpreadsOverConsumerGroupsIndependentlyOfPartitions() {
    Configuration config =
        Configuration.of(
            Map.of(
                "commands.eventhubs.consumer-group", "sebridge",
                "commands.eventhubs.consumer-groups", "2"));
    Map<String, Integer> perGroupInPartition0 = new HashMap<>();
    for (int i = 0; i < 2000; i++) {
      String vm = UUID.randomUUID().toString();
      String group = EventHubsCommandSourceProvider.consumerGroup(config, vm);
      assertThat(group).isIn("sebridge-0", "sebridge-1");
      if (CommandPartitioning.partitionFor(vm, PARTITIONS) == 0) {
        perGroupInPartition0.merge(group, 1, Integer::sum);
      }
    }
    // The VMs of one partition use both groups about equally (about 250 each of 500).
    assertThat(perGroupInPartition0.values()).allSatisfy(n -> assertThat(n).isBetween(180, 320));
    assertThat(EventHubsCommandSourceProvider.consumerGroup(Configuration.of(Map.of()), "any"))
        .isEqualTo("$Default");
  }
}
