package dev.sebridge.outbox;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox's storage: an append-only log in segment files ({@code outbox-<first seq>.log}).
 *
 * <p>Record layout: {@code int length, int crc32c, long seq, long appendedAtMillis, byte flags,
 * payload}; the CRC covers everything after it. An append is durable once {@link #append} returns
 * (the segment is fsynced). On open, the tail of the last segment is checked record by record and
 * cut at the first incomplete or corrupt record: what a {@code kill -9} or power loss in the middle
 * of an append leaves behind, and never something an append had confirmed.
 *
 * <p>Thread-safe: one appender, any number of readers ({@link Cursor}); readers see only durable
 * records.
 */
final class OutboxLog implements AutoCloseable {
  static final int HEADER = 4 + 4 + 8 + 8 + 1;
  private static final Logger LOG = LoggerFactory.getLogger(OutboxLog.class);
  private static final byte FLAG_SHEDDABLE = 1;

  private final Path dir;
  private final long segmentBytes;
  private final List<Segment> segments = new ArrayList<>(); // guarded by this
  private FileChannel active;
  private long nextSeq;

  /** A segment: its first sequence number and durable size. */
  static final class Segment {
    final Path path;
    final long firstSeq;
    volatile long lastSeq; // -1 while empty
    volatile long durableSize;

    Segment(Path path, long firstSeq) {
      this.path = path;
      this.firstSeq = firstSeq;
      this.lastSeq = firstSeq - 1;
    }
  }

  private final CrashPoints crashPoints;

  OutboxLog(Path dir, long segmentBytes, CrashPoints crashPoints) {
    this.dir = dir;
    this.segmentBytes = segmentBytes;
    this.crashPoints = crashPoints;
    try {
      StateDirectory.createPrivateDirectories(dir);
      recover();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the outbox in " + dir, e);
    }
  }

  private void recover() throws IOException {
    List<Path> files;
    try (var s = Files.list(dir)) {
      files =
          s.filter(p -> p.getFileName().toString().matches("outbox-\\d{20}\\.log"))
              .sorted()
              .toList();
    }
    nextSeq = 1;
    for (int i = 0; i < files.size(); i++) {
      Path p = files.get(i);
      StateDirectory.restrict(p); // written 0644 by earlier versions
      long first = Long.parseLong(p.getFileName().toString().substring(7, 27));
      Segment seg = new Segment(p, first);
      long valid = scan(seg);
      long size = Files.size(p);
      if (valid < size) {
        if (i == files.size() - 1) {
          LOG.warn(
              "outbox segment {} ends with {} bytes of an unfinished append; cutting them off",
              p.getFileName(),
              size - valid);
        } else {
          LOG.error(
              "outbox segment {} is corrupt after byte {}; the envelopes after that point are lost",
              p.getFileName(),
              valid);
        }
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
          ch.truncate(valid);
          ch.force(true);
        }
      }
      seg.durableSize = valid;
      if (seg.lastSeq < seg.firstSeq && i < files.size() - 1) {
        Files.delete(p);
        continue;
      }
      segments.add(seg);
      nextSeq = Math.max(nextSeq, seg.lastSeq + 1);
      nextSeq = Math.max(nextSeq, seg.firstSeq);
    }
    if (segments.isEmpty()) {
      roll();
    } else {
      active = FileChannel.open(last().path, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }
  }

  /** Validates a segment; sets its lastSeq; returns the size of its valid prefix. */
  private static long scan(Segment seg) throws IOException {
    try (FileChannel ch = FileChannel.open(seg.path, StandardOpenOption.READ)) {
      long pos = 0;
      long size = ch.size();
      ByteBuffer header = ByteBuffer.allocate(HEADER);
      while (pos + HEADER <= size) {
        header.clear();
        ch.read(header, pos);
        header.flip();
        int len = header.getInt();
        int crc = header.getInt();
        if (len < 0 || pos + HEADER + len > size) {
          break;
        }
        ByteBuffer body = ByteBuffer.allocate(HEADER - 8 + len);
        body.put(header.array(), 8, HEADER - 8);
        ch.read(body, pos + HEADER);
        if (crc(body.array()) != crc) {
          break;
        }
        seg.lastSeq = ByteBuffer.wrap(header.array(), 8, 8).getLong();
        pos += HEADER + len;
      }
      return pos;
    }
  }

  private static int crc(byte[] bytes) {
    CRC32C c = new CRC32C();
    c.update(bytes);
    return (int) c.getValue();
  }

  private Segment last() {
    return segments.get(segments.size() - 1);
  }

  private void roll() throws IOException {
    if (active != null) {
      active.close();
    }
    Path p = dir.resolve(String.format("outbox-%020d.log", nextSeq));
    active =
        FileChannel.open(
            p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    StateDirectory.restrict(p);
    segments.add(new Segment(p, nextSeq));
  }

  /** Appends and fsyncs; returns the records as stored. */
  synchronized List<OutboxRecord> append(
      List<Envelope> envelopes, boolean sheddable, long nowMillis) {
    if (envelopes.isEmpty()) {
      return List.of();
    }
    try {
      if (last().durableSize >= segmentBytes) {
        roll();
      }
      int total = 0;
      for (Envelope e : envelopes) {
        total += HEADER + e.size();
      }
      ByteBuffer buf = ByteBuffer.allocate(total);
      List<OutboxRecord> out = new ArrayList<>(envelopes.size());
      long seq = nextSeq;
      for (Envelope e : envelopes) {
        byte[] payload = e.body();
        ByteBuffer covered = ByteBuffer.allocate(HEADER - 8 + payload.length);
        covered.putLong(seq).putLong(nowMillis).put(sheddable ? FLAG_SHEDDABLE : 0).put(payload);
        buf.putInt(payload.length).putInt(crc(covered.array())).put(covered.array());
        out.add(new OutboxRecord(seq, nowMillis, sheddable, e));
        seq++;
      }
      buf.flip();
      if (crashPoints.at(CrashPoints.OUTBOX_PARTIAL_APPEND)) {
        // Half a batch on disk, as a kill -9 in the middle of the write leaves it.
        buf.limit(Math.max(1, total / 2));
        while (buf.hasRemaining()) {
          active.write(buf);
        }
        active.force(false);
        crashPoints.crash(CrashPoints.OUTBOX_PARTIAL_APPEND);
      }
      while (buf.hasRemaining()) {
        active.write(buf);
      }
      active.force(false);
      Segment s = last();
      s.durableSize += total;
      s.lastSeq = seq - 1;
      nextSeq = seq;
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to the outbox in " + dir, e);
    }
  }

  /** Sequence number of the last durable record (0 when nothing was ever appended). */
  synchronized long lastSeq() {
    return nextSeq - 1;
  }

  /** Sequence number of the oldest record still stored. */
  synchronized long firstSeq() {
    return segments.get(0).firstSeq;
  }

  synchronized long sizeBytes() {
    long total = 0;
    for (Segment s : segments) {
      total += s.durableSize;
    }
    return total;
  }

  /** Deletes whole segments every record of which has a sequence number up to {@code seq}. */
  synchronized void deleteUpTo(long seq) {
    while (segments.size() > 1 && segments.get(0).lastSeq <= seq) {
      Segment s = segments.remove(0);
      try {
        Files.deleteIfExists(s.path);
      } catch (IOException e) {
        LOG.warn("cannot delete delivered outbox segment {}: {}", s.path, e.toString());
      }
    }
  }

  /**
   * Reads up to {@code maxRecords} records (and about {@code maxBytes}) with a sequence number
   * after {@code afterSeq}.
   */
  List<OutboxRecord> read(long afterSeq, int maxRecords, long maxBytes) {
    List<Segment> snapshot;
    synchronized (this) {
      snapshot = List.copyOf(segments);
    }
    List<OutboxRecord> out = new ArrayList<>();
    long bytes = 0;
    for (Segment seg : snapshot) {
      if (seg.lastSeq <= afterSeq) {
        continue;
      }
      long limit = seg.durableSize;
      try (FileChannel ch = FileChannel.open(seg.path, StandardOpenOption.READ)) {
        long pos = 0;
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        while (pos + HEADER <= limit && out.size() < maxRecords && bytes < maxBytes) {
          header.clear();
          ch.read(header, pos);
          header.flip();
          int len = header.getInt();
          header.getInt();
          long seq = header.getLong();
          long at = header.getLong();
          byte flags = header.get();
          if (seq > afterSeq) {
            ByteBuffer payload = ByteBuffer.allocate(len);
            ch.read(payload, pos + HEADER);
            out.add(
                new OutboxRecord(
                    seq, at, (flags & FLAG_SHEDDABLE) != 0, Envelope.fromJson(payload.array())));
            bytes += len;
          }
          pos += HEADER + len;
        }
      } catch (java.nio.file.NoSuchFileException e) {
        continue; // deleted meanwhile: every record in it was delivered everywhere
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the outbox segment " + seg.path, e);
      }
      if (out.size() >= maxRecords || bytes >= maxBytes) {
        break;
      }
    }
    return out;
  }

  @Override
  public synchronized void close() {
    try {
      if (active != null) {
        active.close();
      }
    } catch (IOException e) {
      LOG.debug("closing the outbox segment failed", e);
    }
  }
}
