package dev.sebridge.sink.kafka;

import dev.sebridge.spi.UnsafeSourceException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Checks, before any record is read, that the commands topic cannot deliver a record that
 * decompresses to more than {@link #MAX_MESSAGE_BYTES}: {@code compression.type=uncompressed} (the
 * broker then stores every batch uncompressed, so {@code max.message.bytes} bounds what a consumer
 * decompresses) and {@code max.message.bytes} at most 64 KiB (commands are at most 32 KiB).
 * Otherwise a few KiB of zstd keyed for any VM of the partition could exhaust the heap of every
 * agent reading it, before the agent can even look at the key.
 */
final class CommandTopicGuard {
  /** Commands are at most 32 KiB; batch overhead fits under this. */
  static final int MAX_MESSAGE_BYTES = 64 * 1024;

  private CommandTopicGuard() {}

  /** What an operator runs to make the topic safe. */
  static String fix(String topic) {
    return "kafka-configs.sh --bootstrap-server <broker> --alter --entity-type topics"
        + " --entity-name "
        + topic
        + " --add-config compression.type=uncompressed,max.message.bytes="
        + MAX_MESSAGE_BYTES;
  }

  /** The consumer's settings an admin client knows (connection, security, client metrics). */
  static Map<String, Object> adminProps(Map<String, Object> clientProps) {
    Map<String, Object> adminProps = new java.util.HashMap<>();
    clientProps.forEach(
        (k, v) -> {
          if (org.apache.kafka.clients.admin.AdminClientConfig.configNames().contains(k)) {
            adminProps.put(k, v);
          }
        });
    adminProps.remove("client.id");
    return adminProps;
  }

  /**
   * Throws {@link UnsafeSourceException} when the topic is unsafe; a broker that cannot be asked
   * (down, timeout) is an ordinary failure, retried.
   */
  static void check(Map<String, Object> clientProps, String topic, Duration timeout) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config;
    Admin admin = Admin.create(adminProps(clientProps));
    try {
      config =
          admin
              .describeConfigs(List.of(resource))
              .all()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .get(resource);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.AuthorizationException) {
        throw new UnsafeSourceException(
            "cannot check the commands topic "
                + topic
                + ": DescribeConfigs is not allowed ("
                + e.getCause().getMessage()
                + "). Allow it, or, if the topic is known to be configured as `"
                + fix(topic)
                + "` sets it, set commands.kafka.verify-topic=false");
      }
      throw new IllegalStateException("cannot describe the commands topic " + topic, e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("no answer describing the commands topic " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      // Not waiting for a call still pending (a broker gone): close() would wait out its whole
      // timeout, holding the agent's stop.
      admin.close(Duration.ZERO);
    }
    String compression = value(config, TopicConfig.COMPRESSION_TYPE_CONFIG);
    String maxBytes = value(config, TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    boolean uncompressed = "uncompressed".equals(compression);
    boolean small = maxBytes != null && Long.parseLong(maxBytes) <= MAX_MESSAGE_BYTES;
    if (!uncompressed || !small) {
      throw new UnsafeSourceException(
          "the commands topic "
              + topic
              + " has compression.type="
              + compression
              + " and max.message.bytes="
              + maxBytes
              + ": a compressed record could decompress to any size in every agent reading it."
              + " Approvals by command stay off until it is fixed: "
              + fix(topic));
    }
  }

  private static String value(Config config, String name) {
    var entry = config.get(name);
    return entry == null ? null : entry.value();
  }
}
