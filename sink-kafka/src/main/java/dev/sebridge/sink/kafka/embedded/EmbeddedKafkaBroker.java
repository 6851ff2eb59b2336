package dev.sebridge.sink.kafka.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) in this JVM, on loopback
 * ports chosen at first start and kept across {@link #stop()} and {@link #start()}, so clients see
 * an outage and a recovery, not a new cluster. Used by the tests where no Docker engine exists, by
 * {@code sebridge demo} and by the benchmarks. Topics are never auto-created: create them with
 * {@link #createTopic}.
 *
 * <p>Needs {@code org.apache.kafka:kafka_2.13} (same version as kafka-clients) on the class path.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);

  private final Path logDir;
  private final boolean ownsLogDir;
  private final int brokerPort;
  private final int controllerPort;
  private final String clusterId = Uuid.randomUuid().toString();
  private KafkaRaftServer server;
  private boolean formatted;

  public EmbeddedKafkaBroker() {
    this(null);
  }

  /** A broker keeping its data in {@code logDir} (a fresh temporary directory when null). */
  public EmbeddedKafkaBroker(Path logDir) {
    try {
      this.ownsLogDir = logDir == null;
      this.logDir = logDir == null ? Files.createTempDirectory("sebridge-kafka-") : logDir;
      this.brokerPort = LoopbackPorts.free();
      this.controllerPort = LoopbackPorts.free();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  public synchronized boolean isRunning() {
    return server != null;
  }

  /** Starts (or restarts) the broker; returns once it accepts clients. */
  public synchronized EmbeddedKafkaBroker start() {
    if (server != null) {
      return this;
    }
    KafkaConfig config = new KafkaConfig(properties(), false);
    if (!formatted) {
      format();
      formatted = true;
    }
    server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    awaitReady(Duration.ofSeconds(60));
    LOG.info("embedded Kafka broker running on {}", bootstrapServers());
    return this;
  }

  /** Stops the broker (data kept): an outage for clients until {@link #start()}. */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    server.shutdown();
    server.awaitShutdown();
    server = null;
    LOG.info("embedded Kafka broker on {} stopped", bootstrapServers());
  }

  /** Creates a topic (idempotent). */
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, java.util.Map.of());
  }

  /** A commands topic, configured as the agents require (see KafkaCommandSource). */
  public void createCommandsTopic(String name, int partitions) {
    createTopic(name, partitions, dev.sebridge.sink.kafka.KafkaCommandSource.TOPIC_CONFIGS);
  }

  public void createTopic(String name, int partitions, java.util.Map<String, String> configs) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + name, e.getCause());
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + name, e);
    }
  }

  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
  }

  private Properties properties() {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    p.put("auto.create.topics.enable", "false");
    p.put("num.partitions", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    // Kafka's own default: the log is flushed by the OS, not after every append. A production
    // broker runs this way (its durability is replication); an fsync per record made every produce
    // wait on the disk (at 100,000 VMs, traced with strace, whose own cost is in these figures, the
    // two request handlers spent a quarter of their time in fsync, up to 162 ms a call:
    // benchmarks/FLEET-REPORT.md, "with Azure's inventory"). A clean stop() flushes; nothing here
    // outlives its machine.
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    return p;
  }

  private void format() {
    try {
      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setClusterId(clusterId)
          .setNodeId(1)
          .setControllerListenerName("CONTROLLER")
          .setMetadataLogDirectory(logDir.toString())
          .setDirectories(List.of(logDir.toString()))
          .setReleaseVersion(MetadataVersion.latestProduction())
          .setIgnoreFormatted(true)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot format the embedded broker's storage in " + logDir, e);
    }
  }

  private void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try (Admin admin = admin()) {
        if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
          return;
        }
      } catch (Exception e) {
        last = e;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("embedded Kafka broker did not become ready", last);
  }

  @Override
  public void close() {
    stop();
    if (ownsLogDir) {
      try (var files = Files.walk(logDir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException ignored) {
        // a temp dir left behind is harmless
      }
    }
  }
}
