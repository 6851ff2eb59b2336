package dev.sebridge.fleet;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import dev.sebridge.azure.AzureTokens;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.agentless.CentralEventParser;
import dev.sebridge.fleet.agentless.CentralReconciler;
import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.inventory.Coverage;
import dev.sebridge.fleet.inventory.InventoryPublisher;
import dev.sebridge.fleet.inventory.ResourceGraphInventory;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmEventUpdate;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.fleet.streams.Membership;
import dev.sebridge.fleet.streams.Topics;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Azure's inventory as configured ({@link InventoryKeys}): where membership comes from, the
 * coverage counts, and the publisher that keeps {@code <prefix>-inventory} as Resource Graph says.
 * Without {@code fleet.inventory.*}, membership is the agents' and there is neither.
 */
final class FleetInventory implements AutoCloseable {
  /** How the inventory reaches Resource Graph: a credential and an HTTP client. */
  record Access(TokenCredential credential, HttpClient http) {}

  private final Configuration config;
  private final Coverage coverage;
  private InventoryPublisher publisher;
  private CentralReconciler reconciler;

  FleetInventory(Configuration config) {
    this.config = config;
    this.coverage = InventoryKeys.configured(config) ? new Coverage() : null;
  }

  boolean configured() {
    return coverage != null;
  }

  Membership membership() {
    return configured() ? Membership.INVENTORY : Membership.AGENTS;
  }

  /** The coverage counts, or null without an inventory. */
  Coverage coverage() {
    return coverage;
  }

  /** The views, with the inventory's store when there is one. */
  FleetViews views(KafkaStreams streams) {
    FleetViews views = FleetViews.of(streams);
    return configured() ? views.withInventory(() -> FleetViews.inventoryOf(streams)) : views;
  }

  /**
   * Starts refreshing the inventory (nothing without one), on the instance that runs the rollouts
   * task ({@code writes}): it, and the reconciliation of Azure's scheduled events after it, read
   * and write on one instance at a time.
   */
  void start(
      Map<String, Object> kafka,
      Topics topics,
      FleetViews views,
      Supplier<Access> access,
      Clock clock,
      java.util.function.BooleanSupplier writes) {
    if (!configured()) {
      return;
    }
    Access a = access.get();
    ResourceGraphInventory graph =
        new ResourceGraphInventory(
            config.get(InventoryKeys.ENDPOINT),
            a.credential(),
            a.http(),
            InventoryKeys.scope(config));
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "sebridge-fleet-inventory");
    // A refresh gives up on its records after a minute: none may land later, over a newer
    // owner's (request.timeout.ms 30 s + linger fit in it).
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
    publisher =
        new InventoryPublisher(
            graph::read,
            views::inventory,
            new KafkaProducer<>(
                p, new StringSerializer(), new JsonSerde<>(InventoryVm.class).serializer()),
            topics.of(FleetTopology.INVENTORY),
            clock,
            writes);
    if (topics.centralEvents()) {
      Map<String, Object> c = new HashMap<>(p);
      c.put(ProducerConfig.CLIENT_ID_CONFIG, "sebridge-fleet-central-events");
      CentralReconciler r =
          new CentralReconciler(
              graph::maintenanceEvents,
              new KafkaProducer<>(
                  c, new StringSerializer(), new JsonSerde<>(VmEventUpdate.class).serializer()),
              topics.of(FleetTopology.BY_EVENT),
              clock,
              new CentralEventParser(JsonSerde.JSON),
              row -> CentralReconciler.news(row, heldReport(views, row.key())));
      publisher.alsoEachRefresh(
          new Runnable() {
            @Override
            public void run() {
              r.reconcile();
            }

            @Override
            public String toString() {
              return "the reconciliation of Azure's scheduled events";
            }
          });
      reconciler = r;
    }
    publisher.start(config.get(InventoryKeys.REFRESH));
  }

  /** Azure's report the events view holds for an event (null: none). */
  private static dev.sebridge.fleet.model.CentralReport heldReport(FleetViews views, String key) {
    try {
      return views.event(key).map(e -> e.central()).orElse(null);
    } catch (RuntimeException notReady) {
      throw new IllegalStateException(
          "the events view cannot be read (the streams are starting or rebalancing): nothing sent",
          notReady);
    }
  }

  /** The configured identity's access. */
  static Access configuredAccess(Configuration config) {
    return new Access(
        AzureTokens.from(config, InventoryKeys.CREDENTIAL, InventoryKeys.CLIENT_ID),
        new com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder().build());
  }

  /** When this instance last read the inventory whole (null: not yet, or no inventory). */
  java.time.Instant refreshedAt() {
    return publisher == null ? null : publisher.refreshedAt();
  }

  @Override
  public void close() {
    if (publisher != null) {
      publisher.close();
    }
    if (reconciler != null) {
      reconciler.close();
    }
  }
}
