package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.fleet.agentless.AzureEventStatus;
import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.fleet.model.Source;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.MutableClock;
import dev.sebridge.track.TransitionType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Azure's central deliveries in the fleet's topology: one view per EventId holds the agents' parts
 * and Azure's report side by side, says who saw the event first, and an event only Azure reported
 * (VMs without an agent) opens and closes as Azure says.
 */
class CentralEventsTopologyTest {
  static final Topics TOPICS =
      new Topics("fleet", "envelopes", "commands", "approvals", true, true);
  static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
  static final String EVENT = "A1B2C3D4-0000-4000-8000-00000000AAAA";
  static final String RESOURCE =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-1"
          + "/providers/microsoft.maintenance/scheduledevents/"
          + EVENT;

  final MutableClock clock = new MutableClock(T0);
  final AgentEnvelopes agents = new AgentEnvelopes(clock);
  final VmIdentity vm1 = AgentEnvelopes.vm("vm-1", "web-1", "1", "web");
  final List<String> firsts = new ArrayList<>();
  TopologyTestDriver driver;
  TestInputTopic<String, byte[]> envelopes;
  TestInputTopic<String, byte[]> central;
  TestInputTopic<String, dev.sebridge.fleet.model.InventoryVm> inventory;
  TestInputTopic<String, dev.sebridge.fleet.rollout.RolloutCommand> rollouts;
  org.apache.kafka.streams.TestOutputTopic<String, byte[]> commands;
  org.apache.kafka.streams.TestOutputTopic<String, AcknowledgeOrder> orders;
  TestInputTopic<String, ResultReport> results;

  @BeforeEach
  void start() throws Exception {
    start(Membership.AGENTS);
  }

  /** (Re)starts the topology with this membership; an inventory's input topic with one. */
  void start(Membership membership) throws Exception {
    if (driver != null) {
      driver.close();
    }
    TopologyObserver observer =
        new TopologyObserver() {

          @Override
          public void seenByBoth(Source first, Duration lead) {
            firsts.add(first + " " + lead);
          }
        };
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "central-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, SkipAndCount.class.getName());
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, SkipAndCount.class.getName());
    driver =
        new TopologyTestDriver(
            FleetTopology.build(
                TOPICS,
                new CommandIssuer(
                    new CommandSigner(
                        new ECKeyGenerator(Curve.P_256).keyID("k").generate(), "sebridge-fleet"),
                    Duration.ofMinutes(5)),
                3,
                Retention.closedEvents(Duration.ofHours(24)),
                observer,
                policies,
                Duration.ofSeconds(1),
                () -> 0,
                ReplayGate.NONE,
                dev.sebridge.fleet.streams.ViewsGate.NONE,
                membership),
            p,
            clock.instant());
    if (membership == Membership.INVENTORY) {
      inventory =
          driver.createInputTopic(
              TOPICS.of(FleetTopology.INVENTORY),
              new StringSerializer(),
              new JsonSerde<>(dev.sebridge.fleet.model.InventoryVm.class).serializer());
    }
    envelopes =
        driver.createInputTopic(
            TOPICS.envelopes(), new StringSerializer(), new ByteArraySerializer());
    central =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.AGENTLESS_EVENTS),
            new StringSerializer(),
            new ByteArraySerializer());
    rollouts =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.ROLLOUTS),
            new StringSerializer(),
            new JsonSerde<>(dev.sebridge.fleet.rollout.RolloutCommand.class).serializer());
    commands =
        driver.createOutputTopic(
            TOPICS.commands(),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    orders =
        driver.createOutputTopic(
            TOPICS.of(FleetTopology.ACKNOWLEDGEMENTS),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new JsonSerde<>(AcknowledgeOrder.class).deserializer());
    results =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.BY_REQUEST),
            new StringSerializer(),
            new JsonSerde<>(ResultReport.class).serializer());
  }

  @AfterEach
  void stop() {
    if (driver != null) {
      driver.close();
    }
  }

  /**
   * One Event Grid delivery (CloudEvents schema) of the event, as Azure's clock says {@code at}.
   */
  void deliver(String deliveryId, String status, Instant at, String... resources) {
    deliver(EVENT, deliveryId, status, at, resources);
  }

  void deliver(String eventId, String deliveryId, String status, Instant at, String... resources) {
    deliverAs(
        eventId,
        deliveryId,
        status,
        at,
        "Reboot",
        status.equals("Scheduled") ? "Sun, 23 Nov 2026 10:15:00 GMT" : "",
        resources);
  }

  void deliverAs(
      String eventId,
      String deliveryId,
      String status,
      Instant at,
      String type,
      String notBefore,
      String... resources) {
    String json =
        """
        {"specversion": "1.0", "id": "%s", "source": "/subscriptions/s", "time": "%s",
         "type": "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted",
         "data": {"resourceInfo": {"id": "%s", "name": "%s",
           "type": "Microsoft.Maintenance/scheduledEvents", "location": "westeurope",
           "properties": {"EventId": "%s", "EventType": "%s", "ResourceType": "VirtualMachine",
             "Resources": [%s], "EventStatus": "%s", "NotBefore": "%s",
             "Description": "Host update", "EventSource": "Platform", "DurationInSeconds": -1}}}}"""
            .formatted(
                deliveryId,
                at,
                resource.replace(EVENT, eventId),
                eventId,
                eventId,
                type,
                String.join(", ", List.of(resources).stream().map(r -> "\"" + r + "\"").toList()),
                status,
                notBefore);
    // written to the hub as Azure sent it, unless the test says otherwise
    central.pipeInput(
        "any-key", json.getBytes(StandardCharsets.UTF_8), written == null ? at : written);
  }

  /** The central policies the topology runs (none unless a test sets them before start). */
  dev.sebridge.fleet.rollout.Policies policies = dev.sebridge.fleet.rollout.Policies.none();

  /** The scheduled event's ARM id the deliveries carry (with EVENT replaced by theirs). */
  String resource = RESOURCE;

  /** Azure's Scheduled for db-1 at T0, its NotBefore as given (as Event Grid writes one). */
  void scheduledFor(Instant notBefore) {
    deliverAs(
        EVENT,
        "d-1",
        "Scheduled",
        T0,
        "Redeploy",
        java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
            notBefore.atZone(java.time.ZoneOffset.UTC)),
        "db-1");
  }

  /** When the next delivery reaches the hub (null: at the time it carries). */
  Instant written;

  EventView event() {
    KeyValueStore<String, EventView> s = driver.getKeyValueStore(FleetTopology.EVENTS_VIEW);
    return s.get(EVENT.toLowerCase(java.util.Locale.ROOT));
  }

  void advance(Duration d) {
    clock.advance(d);
    driver.advanceWallClockTime(d);
  }

  @Test
  void anEventOfVmsWithoutAnAgentOpensAndClosesAsAzureSaysAndLateDeliveriesChangeNothing() {
    deliver("d-1", "Scheduled", T0, "db-1", "db-2");
    EventView e = event();
    assertThat(e.open()).isTrue();
    assertThat(e.vms()).isEmpty();
    assertThat(e.resources()).containsExactly("db-1", "db-2");
    assertThat(e.eventType()).isEqualTo("Reboot");
    assertThat(e.notBefore()).isEqualTo(Instant.parse("2026-11-23T10:15:00Z"));
    assertThat(e.firstSeenBy()).isEqualTo(Source.AZURE);
    assertThat(e.central().status()).isEqualTo(AzureEventStatus.SCHEDULED);
    assertThat(e.central().resourceId()).isEqualTo(RESOURCE);

    deliver("d-2", "Started", T0.plusSeconds(900), "db-1", "db-2");
    deliver("d-1", "Scheduled", T0, "db-1", "db-2"); // the first again, late and repeated
    // a late one that says something else: nothing but the times moves
    deliverAs(EVENT, "d-0", "Started", T0.plusSeconds(1), "Freeze", "", "db-9");
    e = event();
    assertThat(e.resources()).containsExactly("db-1", "db-2");
    assertThat(e.central().resources()).containsExactly("db-1", "db-2");
    assertThat(e.eventType()).isEqualTo("Reboot");
    assertThat(e.central().status()).isEqualTo(AzureEventStatus.STARTED);
    assertThat(e.notBefore()).as("empty once Started, not brought back").isNull();
    assertThat(e.central().firstSeenAt()).isEqualTo(T0);
    assertThat(e.central().lastSeenAt()).isEqualTo(T0.plusSeconds(900));
    assertThat(e.open()).isTrue();

    deliver("d-3", "Completed", T0.plusSeconds(1000), "db-1", "db-2");
    deliver("d-4", "Canceled", T0.plusSeconds(1100), "db-1", "db-2"); // the first final stands
    e = event();
    assertThat(e.central().status()).isEqualTo(AzureEventStatus.COMPLETED);
    assertThat(e.closedAt()).isEqualTo(T0.plusSeconds(1000));
    assertThat(firsts).as("no agent ever reported it").isEmpty();
  }

  @Test
  void whoSawItFirstAndByHowMuchWhenAnAgentWasFirst() {
    envelopes.pipeInput(
        vm1.vmId(),
        agents.transition(
            TransitionType.SCHEDULED,
            vm1,
            AgentEnvelopes.imdsEvent(
                EVENT, "Reboot", "Scheduled", List.of("web-1"), T0.plusSeconds(900)),
            false),
        clock.instant());
    // Azure says something else of it (or someone writes to the hub): the agents' fields stand.
    deliverAs(
        EVENT,
        "d-1",
        "Scheduled",
        T0.plusSeconds(42),
        "Terminate",
        "Mon, 24 Nov 2026 09:00:00 GMT",
        "web-1",
        "web-7");
    EventView e = event();
    assertThat(e.eventType()).isEqualTo("Reboot");
    assertThat(e.notBefore()).isEqualTo(T0.plusSeconds(900));
    assertThat(e.resources()).containsExactly("web-1");
    assertThat(e.central().resources()).containsExactly("web-1", "web-7");
    assertThat(e.firstSeenBy()).isEqualTo(Source.AGENT);
    assertThat(e.vms()).containsOnlyKeys("vm-1");
    assertThat(e.central().status()).isEqualTo(AzureEventStatus.SCHEDULED);
    assertThat(firsts).containsExactly("AGENT PT42S");
    // Azure's report never closes an event an agent still reports open: the agent's part decides
    deliver("d-2", "Completed", T0.plusSeconds(60), "web-1");
    assertThat(event().open()).isTrue();
    assertThat(event().vms().get("vm-1").status()).isEqualTo("scheduled");
  }

  @Test
  void whoSawItFirstAndByHowMuchWhenAzureWasFirst() {
    deliver("d-1", "Scheduled", T0, "web-1");
    clock.advance(Duration.ofSeconds(3));
    envelopes.pipeInput(
        vm1.vmId(),
        agents.transition(
            TransitionType.SCHEDULED,
            vm1,
            AgentEnvelopes.imdsEvent(
                EVENT, "Reboot", "Scheduled", List.of("web-1"), T0.plusSeconds(900)),
            false),
        clock.instant());
    EventView e = event();
    assertThat(e.firstSeenBy()).isEqualTo(Source.AZURE);
    assertThat(e.firstSeenAt()).isEqualTo(T0);
    assertThat(e.vms()).containsOnlyKeys("vm-1");
    assertThat(e.central()).isNotNull();
    assertThat(firsts).containsExactly("AZURE PT3S");
  }

  /**
   * Event Grid lost the Completed: the reconciliation read of Resource Graph ({@link
   * dev.sebridge.fleet.agentless.CentralReconciler}) sends Azure's report to the event's partition,
   * and the view closes as if it had been delivered.
   */
  @Test
  void theReconciliationReadRepairsALostDelivery() {
    deliver("d-1", "Started", T0, "db-1");
    var reconciled =
        new dev.sebridge.fleet.agentless.AzureScheduledEvent(
            "resource-graph",
            EVENT,
            RESOURCE,
            AzureEventStatus.COMPLETED,
            "Reboot",
            "Platform",
            null,
            -1,
            "Host update",
            List.of("db-1"),
            "westeurope",
            null);
    driver
        .createInputTopic(
            TOPICS.of(FleetTopology.BY_EVENT),
            new StringSerializer(),
            new JsonSerde<>(dev.sebridge.fleet.model.VmEventUpdate.class).serializer())
        .pipeInput(
            EVENT.toLowerCase(java.util.Locale.ROOT),
            dev.sebridge.fleet.model.VmEventUpdate.reconciled(reconciled, T0.plusSeconds(300)),
            T0.plusSeconds(300));
    assertThat(event().central().status()).isEqualTo(AzureEventStatus.COMPLETED);
    assertThat(event().open()).isFalse();
  }

  @Test
  void aDeliveryDatedInTheFutureCountsFromWhenItWasWrittenSoItCannotStayOpenForGood() {
    written = T0;
    deliver("d-1", "Started", T0.plus(Duration.ofDays(365)), "db-1");
    assertThat(event().central().lastSeenAt()).isEqualTo(T0);
    advance(Retention.VMS.plusMinutes(5));
    assertThat(event().open()).isFalse();
  }

  /**
   * Scheduled eight days ahead (a predicted hardware failure waiting for its host's other tenants),
   * nothing more delivered: it stays open until its NotBefore is as long past as the silence that
   * closes an event. Closed after a week of silence, its VM was taken for back, and its start at
   * NotBefore counted nowhere until Azure's Started came.
   */
  @Test
  void anEventOnlyAzureReportedStaysOpenUntilItsNotBeforeIsLongPast() {
    Instant notBefore = T0.plus(Duration.ofDays(8));
    scheduledFor(notBefore);
    assertThat(event().notBefore()).isEqualTo(notBefore);
    advance(Retention.VMS.plusMinutes(10));
    assertThat(event().open()).as("a week of silence, NotBefore a day ahead").isTrue();
    advance(Duration.ofDays(8).minusMinutes(20)); // NotBefore 10 minutes short of a week past
    assertThat(event().open()).isTrue();
    advance(Duration.ofMinutes(20));
    assertThat(event().open()).as("NotBefore a week past, nothing delivered").isFalse();
  }

  /** A NotBefore further ahead than anything Azure schedules does not keep it open that long. */
  @Test
  void aNotBeforeMonthsAheadDoesNotKeepAnEventOnlyAzureReportedOpen() {
    scheduledFor(T0.plus(Duration.ofDays(90)));
    advance(Retention.VMS.plusMinutes(10));
    assertThat(event().open()).isFalse();
  }

  @Test
  void anEventOnlyAzureReportedWhoseEndWasNeverDeliveredClosesAndIsForgotten() {
    deliver("d-1", "Started", T0, "db-1");
    advance(Retention.VMS.minusMinutes(5));
    assertThat(event().open()).isTrue();
    advance(Duration.ofMinutes(10));
    assertThat(event().open()).as("nothing delivered for fleet.vm-retention").isFalse();
    advance(Duration.ofHours(25));
    assertThat(event()).as("forgotten after the closed retention").isNull();
  }

  /**
   * The ledger hears Azure: an event of a VM without an agent that Azure says started takes room in
   * every group of an active rollout (the VM could be in any), so the rollout releases nothing into
   * a group at its limit until Azure says that event is over.
   */
  @Test
  void aRolloutWaitsWhileAzureSaysAVmWithoutAnAgentIsDown() throws Exception {
    start(Membership.INVENTORY);
    // Azure's inventory: vm-1 (zone 1, an agent) and db-1 (zone 2, none).
    inventory.pipeInput(
        vm1.vmId(),
        new dev.sebridge.fleet.model.InventoryVm(
            vm1.vmId(), null, "web-1", "s", "rg", "westeurope", "1", "web", null, null));
    inventory.pipeInput(
        "db1-vm-id",
        new dev.sebridge.fleet.model.InventoryVm(
            "db1-vm-id", null, "db-1", "s", "rg", "westeurope", "2", null, null, null));
    // A VM outside the fleet (another team's, same subscription): Azure's word on it counts for
    // nothing here.
    deliver("C1B2C3D4-0000-4000-8000-00000000CCCC", "d-0", "Started", T0, "other-team-1");
    String other = "B1B2C3D4-0000-4000-8000-00000000BBBB";
    deliver(other, "d-1", "Started", T0, "db-1");
    envelopes.pipeInput(
        vm1.vmId(),
        agents.transition(
            TransitionType.SCHEDULED,
            vm1,
            AgentEnvelopes.imdsEvent(
                EVENT, "Reboot", "Scheduled", List.of("web-1"), T0.plusSeconds(900)),
            false),
        clock.instant());
    rollouts.pipeInput(
        "r1",
        new dev.sebridge.fleet.rollout.RolloutCommand(
            "r1",
            dev.sebridge.fleet.rollout.RolloutCommand.CREATE,
            new dev.sebridge.fleet.rollout.RolloutSpec(
                List.of(EVENT), "1", List.of("zone"), Duration.ZERO, Duration.ofMinutes(5)),
            null,
            null,
            "patch",
            "alice",
            clock.instant(),
            "api"));
    advance(Duration.ofSeconds(1));
    advance(Duration.ofSeconds(1));
    assertThat(commands.isEmpty()).as("db-1 may be in zone 1: nothing released").isTrue();

    deliver(other, "d-2", "Completed", T0.plusSeconds(5), "db-1");
    advance(Duration.ofSeconds(1)); // the ledger sees it over
    advance(Duration.ofMinutes(9));
    assertThat(commands.isEmpty()).as("db-1 counts until 10 minutes after").isTrue();
    advance(Duration.ofMinutes(1));
    assertThat(commands.readKeyValuesToList())
        .extracting(kv -> kv.key)
        .as("10 minutes after the fleet saw Azure say it was over")
        .containsExactly("vm-1");
  }

  /**
   * A rollout over an event only db-1 has (no agent): Azure's inventory places db-1 in zone 2 of
   * the event's resource group, the ledger counts it there, and the rollout releases the event by
   * ordering an acknowledgement through Azure's Maintenance API, audited like any approval; no
   * command is signed. Its agentful neighbour in zone 2 waits for db-1 to be back.
   */
  @Test
  void aRolloutAcknowledgesAnEventOnlyAVmWithoutAnAgentHasWhereTheInventoryPlacesIt()
      throws Exception {
    start(Membership.INVENTORY);
    String rg = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/";
    inventory.pipeInput(
        "db1-vm-id",
        new dev.sebridge.fleet.model.InventoryVm(
            "db1-vm-id", rg + "db-1", "db-1", "s", "rg", "westeurope", "2", null, null, null));
    inventory.pipeInput(
        vm1.vmId(),
        new dev.sebridge.fleet.model.InventoryVm(
            vm1.vmId(), rg + "web-1", "web-1", "s", "rg", "westeurope", "2", "web", null, null));
    String second = "B1B2C3D4-0000-4000-8000-00000000BBBB";
    resource = RESOURCE.replace("web-1", "db-1"); // db-1's own event
    envelopes.pipeInput(
        vm1.vmId(),
        agents.transition(
            TransitionType.SCHEDULED,
            vm1,
            AgentEnvelopes.imdsEvent(
                second, "Reboot", "Scheduled", List.of("web-1"), T0.plusSeconds(900)),
            false),
        clock.instant());
    deliver("d-1", "Scheduled", T0, "db-1");
    var audit =
        driver.createOutputTopic(
            TOPICS.approvals(),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new JsonSerde<>(ApprovalRequest.class).deserializer());
    rollouts.pipeInput(
        "r1",
        new dev.sebridge.fleet.rollout.RolloutCommand(
            "r1",
            dev.sebridge.fleet.rollout.RolloutCommand.CREATE,
            new dev.sebridge.fleet.rollout.RolloutSpec(
                List.of(EVENT, second), "1", List.of("zone"), Duration.ZERO, Duration.ofMinutes(5)),
            null,
            null,
            "patch",
            "alice",
            clock.instant(),
            "api"));
    advance(Duration.ofSeconds(1));
    advance(Duration.ofSeconds(1));

    String requestId = dev.sebridge.fleet.rollout.RolloutPlanner.requestId("r1", EVENT);
    ApprovalRequest audited = audit.readValue();
    assertThat(audited.requestId()).isEqualTo(requestId);
    assertThat(audited.wasAdmitted()).isTrue();
    assertThat(audited.vmIds()).isEmpty();
    assertThat(audited.acknowledge()).isEqualTo(new Acknowledgement(resource, List.of("db-1")));
    var order = orders.readKeyValue();
    assertThat(order.key).isEqualTo(requestId);
    assertThat(order.value.vms()).containsExactly("db-1");
    assertThat(order.value.resourceId()).isEqualTo(resource);
    assertThat(commands.isEmpty()).as("db-1 takes zone 2's one place: web-1 waits").isTrue();
    dev.sebridge.fleet.rollout.LedgerEntry db1 =
        driver
            .<String, dev.sebridge.fleet.rollout.LedgerEntry>getKeyValueStore(
                FleetTopology.LEDGER_STATE)
            .get("db1-vm-id|" + EVENT.toLowerCase(java.util.Locale.ROOT));
    assertThat(db1.placed()).isTrue();
    assertThat(db1.group(List.of("zone"))).isEqualTo("zone=2");

    // Azure starts and completes it; db-1 is back 10 minutes later, and web-1's turn comes.
    deliver("d-2", "Started", T0.plusSeconds(60), "db-1");
    advance(Duration.ofSeconds(60));
    deliver("d-3", "Completed", T0.plusSeconds(120), "db-1");
    advance(Duration.ofSeconds(60));
    advance(Duration.ofMinutes(9));
    assertThat(commands.isEmpty()).isTrue();
    advance(Duration.ofMinutes(1));
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
  }

  /**
   * A policy approves an event web-1 (an agent) and db-1 (none, in web-1's availability set) have:
   * a signed command for web-1, and, as the API does, an acknowledgement through the Maintenance
   * API for db-1, audited with the request.
   */
  @Test
  void aPolicysApprovalAcknowledgesForTheVmsWithoutALiveAgent() throws Exception {
    List<dev.sebridge.config.ConfigProblem> problems = new ArrayList<>();
    policies =
        dev.sebridge.fleet.rollout.Policies.parse(
            java.util.Map.of(
                "version", "1",
                "rules.10-all.match.type", "Reboot",
                "rules.10-all.action", "approve"),
            problems);
    assertThat(problems).isEmpty();
    start(Membership.INVENTORY);
    String rg = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/";
    inventory.pipeInput(
        vm1.vmId(),
        new dev.sebridge.fleet.model.InventoryVm(
            vm1.vmId(), rg + "web-1", "web-1", "s", "rg", "westeurope", "1", null, "as", null));
    inventory.pipeInput(
        "db1-vm-id",
        new dev.sebridge.fleet.model.InventoryVm(
            "db1-vm-id", rg + "db-1", "db-1", "s", "rg", "westeurope", "2", null, "as", null));
    var audit =
        driver.createOutputTopic(
            TOPICS.approvals(),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new JsonSerde<>(ApprovalRequest.class).deserializer());
    deliver("d-1", "Scheduled", T0, "web-1", "db-1");
    envelopes.pipeInput(
        vm1.vmId(),
        agents.transition(
            TransitionType.SCHEDULED,
            vm1,
            AgentEnvelopes.imdsEvent(
                EVENT, "Reboot", "Scheduled", List.of("web-1", "db-1"), T0.plusSeconds(900)),
            false),
        clock.instant());
    advance(Duration.ofSeconds(1));
    advance(Duration.ofSeconds(1));

    ApprovalRequest approved = audit.readValue();
    assertThat(approved.origin()).startsWith("policy:10-all");
    assertThat(approved.vmIds()).containsExactly(vm1.vmId());
    assertThat(approved.acknowledge()).isEqualTo(new Acknowledgement(RESOURCE, List.of("db-1")));
    assertThat(orders.readKeyValue().value.vms()).containsExactly("db-1");
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
  }

  /**
   * The index was read before Azure's inventory listed db-1; when it does (a refresh, change by
   * change), Azure's word on db-1's event counts from then on.
   */
  @Test
  void aVmTheInventoryListsLaterCountsFromThen() throws Exception {
    start(Membership.INVENTORY);
    inventory.pipeInput(
        vm1.vmId(),
        new dev.sebridge.fleet.model.InventoryVm(
            vm1.vmId(), null, "web-1", "s", "rg", "westeurope", "1", "web", null, null));
    deliver("B1B2C3D4-0000-4000-8000-00000000BBBB", "d-1", "Started", T0, "db-1");
    advance(Duration.ofSeconds(1)); // the rollouts task reads the views whole: db-1 is not listed
    inventory.pipeInput(
        "db1-vm-id",
        new dev.sebridge.fleet.model.InventoryVm(
            "db1-vm-id", null, "db-1", "s", "rg", "westeurope", "2", null, null, null));
    envelopes.pipeInput(
        vm1.vmId(),
        agents.transition(
            TransitionType.SCHEDULED,
            vm1,
            AgentEnvelopes.imdsEvent(
                EVENT, "Reboot", "Scheduled", List.of("web-1"), T0.plusSeconds(900)),
            false),
        clock.instant());
    rollouts.pipeInput(
        "r1",
        new dev.sebridge.fleet.rollout.RolloutCommand(
            "r1",
            dev.sebridge.fleet.rollout.RolloutCommand.CREATE,
            new dev.sebridge.fleet.rollout.RolloutSpec(
                List.of(EVENT), "1", List.of("zone"), Duration.ZERO, Duration.ofMinutes(5)),
            null,
            null,
            "patch",
            "alice",
            clock.instant(),
            "api"));
    advance(Duration.ofSeconds(1));
    advance(Duration.ofSeconds(1));
    assertThat(commands.isEmpty()).as("db-1, listed now, may be in zone 1").isTrue();
  }

  /**
   * Turning fleet.central-events or fleet.acknowledge.enabled on or off keeps every sub-topology's
   * number and nodes: the tasks, and the stores they hold, stay the same tasks.
   */
  @Test
  void theCentralSourceJoinsTheEnvelopesSubTopologyAndMovesNoOther() {
    CommandIssuer issuer =
        new CommandIssuer(
            new CommandSigner(assertDoesNotThrowKey(), "sebridge-fleet"), Duration.ofMinutes(5));
    var off =
        FleetTopology.build(
                new Topics("fleet", "envelopes", "commands", "approvals", false),
                issuer,
                3,
                Duration.ofHours(24),
                TopologyObserver.NONE)
            .describe();
    var on =
        FleetTopology.build(TOPICS, issuer, 3, Duration.ofHours(24), TopologyObserver.NONE)
            .describe();
    java.util.Map<Integer, java.util.Set<String>> before = nodes(off);
    java.util.Map<Integer, java.util.Set<String>> after = nodes(on);
    after
        .values()
        .forEach(
            n ->
                n.removeAll(
                    List.of(
                        CentralFanOut.SOURCE,
                        CentralFanOut.PROCESSOR,
                        FleetTopology.ACKNOWLEDGEMENTS_SINK)));
    assertThat(after).isEqualTo(before);
    assertThat(nodes(on).values())
        .anySatisfy(n -> assertThat(n).contains("envelopes", CentralFanOut.SOURCE));
    assertThat(nodes(on).values())
        .anySatisfy(n -> assertThat(n).contains("requests", FleetTopology.ACKNOWLEDGEMENTS_SINK));
  }

  private static com.nimbusds.jose.jwk.ECKey assertDoesNotThrowKey() {
    try {
      return new ECKeyGenerator(Curve.P_256).keyID("k").generate();
    } catch (com.nimbusds.jose.JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  private static java.util.Map<Integer, java.util.Set<String>> nodes(
      org.apache.kafka.streams.TopologyDescription d) {
    java.util.Map<Integer, java.util.Set<String>> out = new java.util.TreeMap<>();
    d.subtopologies()
        .forEach(
            st -> {
              java.util.Set<String> names = new java.util.TreeSet<>();
              st.nodes().forEach(n -> names.add(n.name()));
              out.put(st.id(), names);
            });
    return out;
  }

  @Test
  void aDeliveryThatCannotBeReadIsCountedAndStopsNothing() {
    long before =
        SkipAndCount.counts()
            .getOrDefault(CentralFanOut.MALFORMED, new java.util.concurrent.atomic.AtomicLong())
            .get();
    central.pipeInput("k", "not json".getBytes(StandardCharsets.UTF_8), clock.instant());
    central.pipeInput(
        "k",
        ("{\"specversion\": \"1.0\", \"id\": \"x\", \"type\": \"t\", \"data\": {\"resourceInfo\":"
                + " {\"type\": \"microsoft.maintenance/scheduledevents\", \"properties\":"
                + " {\"ResourceType\": \"VirtualMachine\"}}}}")
            .getBytes(StandardCharsets.UTF_8),
        clock.instant());
    assertThat(SkipAndCount.counts().get(CentralFanOut.MALFORMED).get()).isEqualTo(before + 2);
    deliver("d-1", "Scheduled", T0, "db-1");
    assertThat(event()).isNotNull();
  }

  /** An approval of an event only Azure reported, as the API writes it for the ledger. */
  ApprovalRequest agentlessApproval(String requestId, String... vms) {
    return approval(requestId, "alice", null, new Acknowledgement(RESOURCE, List.of(vms)));
  }

  /** An approval of {@link #EVENT} for no agent, with this acknowledgement. */
  ApprovalRequest approval(
      String requestId, String by, Boolean override, Acknowledgement acknowledge) {
    return new ApprovalRequest(
        requestId,
        EVENT,
        List.of(),
        "patch",
        by,
        clock.instant(),
        "api",
        override,
        null,
        null,
        acknowledge);
  }

  RequestView request(String requestId) {
    KeyValueStore<String, RequestView> s = driver.getKeyValueStore(FleetTopology.REQUESTS_VIEW);
    return s.get(requestId);
  }

  /**
   * Item 3 of issue 28: the VMs without an agent are approved through Azure's Maintenance API, as
   * an order the acknowledger acts on, only once the request is audited and admitted by the ledger,
   * within a command's lifetime; each VM's outcome comes back to the request's view, and the first
   * outcome stands.
   */
  @Test
  void anEventOfVmsWithoutAnAgentIsAcknowledgedOnceAuditedAndEachVmGetsItsOutcome() {
    deliver("d-1", "Scheduled", T0, "db-1", "db-2");
    var audit =
        driver.createOutputTopic(
            TOPICS.approvals(),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new JsonSerde<>(ApprovalRequest.class).deserializer());
    rollouts.pipeInput(
        "req-1",
        dev.sebridge.fleet.rollout.RolloutCommand.approve(
            agentlessApproval("req-1", "db-1", "DB-2")));

    ApprovalRequest audited = audit.readValue();
    assertThat(audited.wasAdmitted()).isTrue();
    assertThat(audited.acknowledge().resourceId()).isEqualTo(RESOURCE);
    var order = orders.readKeyValue();
    assertThat(order.key).isEqualTo("req-1");
    assertThat(order.value.resourceId()).isEqualTo(RESOURCE);
    assertThat(order.value.vms()).containsExactly("db-1", "DB-2");
    assertThat(order.value.expiresAt())
        .isEqualTo(order.value.issuedAt().plus(Duration.ofMinutes(5)));
    assertThat(orders.isEmpty()).isTrue();
    assertThat(commands.isEmpty()).as("no agent: nothing signed or sent").isTrue();
    assertThat(request("req-1").vms()).containsOnlyKeys("name:db-1", "name:db-2");
    assertThat(request("req-1").complete()).isFalse();

    results.pipeInput(
        "req-1",
        new ResultReport(
            "name:db-1", "fleet:req-1:name:db-1", "outcome", "accepted", "acknowledged", "ok", T0));
    results.pipeInput(
        "req-1",
        new ResultReport(
            "name:db-2", "fleet:req-1:name:db-2", "outcome", "accepted", "acknowledged", "ok", T0));
    // The same order answered again (read again after a failed commit): the first outcome stands.
    results.pipeInput(
        "req-1",
        new ResultReport(
            "name:db-1", "fleet:req-1:name:db-1", "outcome", "failed", "expired", "late", T0));
    assertThat(request("req-1").complete()).isTrue();
    assertThat(request("req-1").vms().get("name:db-1").outcome()).isEqualTo("accepted");

    // An acknowledgement that is not of its event (another scheduled event's ARM id, a VM the
    // event does not list): refused by the ledger's gate, audited as refused, nothing ordered.
    ApprovalRequest other =
        approval(
            "req-2",
            "mallory",
            true,
            new Acknowledgement(
                RESOURCE.replace("web-1", "web-9").replace(EVENT, "OTHER"), List.of("db-1")));
    rollouts.pipeInput("req-2", dev.sebridge.fleet.rollout.RolloutCommand.approve(other));
    ApprovalRequest stranger =
        approval(
            "req-3", "mallory", true, new Acknowledgement(RESOURCE, List.of("db-1", "payroll-1")));
    rollouts.pipeInput("req-3", dev.sebridge.fleet.rollout.RolloutCommand.approve(stranger));
    // The same EventId under another VM: not the ARM id Azure gave for the event.
    ApprovalRequest elsewhere =
        approval(
            "req-4",
            "mallory",
            true,
            new Acknowledgement(RESOURCE.replace("web-1", "web-9"), List.of("db-1")));
    rollouts.pipeInput("req-4", dev.sebridge.fleet.rollout.RolloutCommand.approve(elsewhere));
    assertThat(audit.readValue().refusal()).contains("is not event");
    assertThat(audit.readValue().refusal()).contains("does not list payroll-1");
    assertThat(audit.readValue().refusal()).contains("is not the one Azure gave");
    assertThat(orders.isEmpty()).as("refused: nothing ordered").isTrue();
    assertThat(request("req-2").vms().get("name:db-1").outcome()).isEqualTo("refused");
  }

  /** A request written with VMs to acknowledge, read by a topology that does not acknowledge. */
  @Test
  void withoutAcknowledgingTheVmsWithoutAnAgentFailAndNothingIsSent() throws Exception {
    driver.close();
    driver = null;
    Topics without = new Topics("fleet", "envelopes", "commands", "approvals", true, false);
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "central-test-2");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    try (TopologyTestDriver d =
        new TopologyTestDriver(
            FleetTopology.build(
                without,
                new CommandIssuer(
                    new CommandSigner(
                        new ECKeyGenerator(Curve.P_256).keyID("k").generate(), "sebridge-fleet"),
                    Duration.ofMinutes(5)),
                3,
                Duration.ofHours(24),
                TopologyObserver.NONE),
            p,
            clock.instant())) {
      d.createInputTopic(
              without.approvals(),
              new StringSerializer(),
              new JsonSerde<>(ApprovalRequest.class).serializer())
          .pipeInput("req-1", agentlessApproval("req-1", "db-1").admit());
      KeyValueStore<String, RequestView> s = d.getKeyValueStore(FleetTopology.REQUESTS_VIEW);
      RequestView.VmResult db1 = s.get("req-1").vms().get("name:db-1");
      assertThat(db1.outcome()).isEqualTo("failed");
      assertThat(db1.reason()).contains("fleet.acknowledge.enabled");
    }
  }
}
