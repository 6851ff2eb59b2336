package dev.sebridge.command;

import java.nio.charset.StandardCharsets;

/**
 * Which partition of the commands topic (Kafka) or hub (Event Hubs) holds a VM's commands:
 * MurmurHash2 (Kafka's seed {@code 0x9747b28c}) of the UTF-8 bytes of the {@link #canonical
 * canonical} (lower-case) vmId, sign bit cleared, modulo the partition count (docs/approvals.md has
 * test vectors). That is Kafka's Java default partitioner for a record keyed by the lower-case vmId
 * (sink-kafka's tests check it against Kafka's own) and librdkafka's {@code murmur2_random};
 * librdkafka's default ({@code consistent_random}, CRC32) is not. On Event Hubs, {@code sebridge
 * approve} sends to that partition explicitly. The agent reads that one partition only, so a fleet
 * can share one commands topic or hub.
 */
public final class CommandPartitioning {
  private CommandPartitioning() {}

  public static int partitionFor(String vmId, int partitions) {
    if (partitions <= 0) {
      throw new IllegalArgumentException("a topic has at least one partition");
    }
    return (murmur2(canonical(vmId).getBytes(StandardCharsets.UTF_8)) & 0x7fffffff) % partitions;
  }

  /**
   * The one form of a vmId that routing and comparisons use: trimmed, lower case. Azure prints
   * vmIds in both cases; IMDS reports them in lower case.
   */
  public static String canonical(String vmId) {
    return vmId.trim().toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether two spellings name the same VM. */
  public static boolean sameVm(String a, String b) {
    return a != null && b != null && canonical(a).equals(canonical(b));
  }

  /** MurmurHash2, 32 bits, with the seed Kafka uses. */
  static int murmur2(byte[] data) {
    final int m = 0x5bd1e995;
    final int r = 24;
    int length = data.length;
    int h = 0x9747b28c ^ length;
    int blocks = length / 4;
    for (int i = 0; i < blocks; i++) {
      int o = i * 4;
      int k =
          (data[o] & 0xff)
              | ((data[o + 1] & 0xff) << 8)
              | ((data[o + 2] & 0xff) << 16)
              | ((data[o + 3] & 0xff) << 24);
      k *= m;
      k ^= k >>> r;
      k *= m;
      h *= m;
      h ^= k;
    }
    int tail = length & ~3;
    switch (length % 4) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
      // fall through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
      // fall through
      case 1:
        h ^= data[tail] & 0xff;
        h *= m;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= m;
    h ^= h >>> 15;
    return h;
  }
}
