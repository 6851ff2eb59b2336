package dev.sebridge.fleet.streams;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * How a closed event's view is kept: its JSON deflated (zlib, with its checksum) against a preset
 * dictionary of what every event's view says (field names, types, statuses), behind one byte,
 * {@link #PACKED}, that no JSON document starts with. A closed one-VM event's view of 567 bytes
 * packs into 152 ({@code ViewPackingTest}); the views keep every closed event for {@code
 * fleet.closed-retention}, each in the events' view topic, its global store on every instance and
 * the events task's store (benchmarks/FLEET-REPORT.md, "With a history of closed events").
 *
 * <p>The dictionary is part of the format: a record packed with it is read with it for as long as
 * the views keep one ({@code fleet.closed-retention}). A new dictionary is a new first byte, the
 * old one still read; {@code ViewPackingTest} fails when this one changes.
 */
final class ViewPacking {
  private ViewPacking() {}

  /** The first byte of a packed record: deflated against {@link #DICTIONARY}. */
  static final byte PACKED = 1;

  /**
   * What the deflater may refer back to before the first byte of a view: the names and values views
   * share, those most views have last (zlib finds the nearest first). Never changed: see the class.
   */
  static final byte[] DICTIONARY =
      ("\"central\":{\"status\":\"SCHEDULED\",\"STARTED\",\"COMPLETED\",\"CANCELED\","
              + "\"resourceId\":\"/subscriptions/\",\"resourceGroups/\","
              + "\"providers/Microsoft.Compute/virtualMachines/\",\"virtualMachineScaleSets/\","
              + "\"approval\":{\"outcome\":\"accepted\",\"rejected\",\"reasonCode\":\","
              + "\"requestedBy\":\"\",\"commandId\":\"\",\"at\":\"\"},\"guess\":\"vanished\","
              + "\"eventType\":\"Freeze\",\"Redeploy\",\"Preempt\",\"Terminate\",\"Reboot\","
              + "\"eventSource\":\"User\",\"Platform\",\"firstSeenBy\":\"azure\",\"agent\","
              + "\"reportedAt\":\"\",\"scheduled\",\"started\",\"canceled\",\"inferred\","
              + "{\"eventId\":\"\",\"eventType\":\"Reboot\",\"eventSource\":\"Platform\","
              + "\"notBefore\":\"\",\"durationInSeconds\":-1,\"description\":\"Host update\","
              + "\"resources\":[\"\"],\"firstSeenAt\":\"\",\"lastSeenAt\":\"\",\"closedAt\":\"\","
              + "\"vms\":{\"\":{\"vmId\":\"\",\"name\":\"\",\"zone\":\"\",\"scaleSet\":\"\","
              + "\"status\":\"completed\",\"since\":\":00Z\"}}}")
          .getBytes(StandardCharsets.US_ASCII);

  /**
   * The most a packed record unpacks to, and the largest view packed: a view is a record of the
   * views' topic, whose broker takes 1 MiB by default.
   */
  static final int MAX_UNPACKED = 16 << 20;

  // A deflater a thread, reset for each record: making one (some 300 KB of zlib's state) costs more
  // than packing a view, and only the few threads that write views pack. Every thread that reads
  // one (the API's, up to hundreds) makes an inflater for it and ends it: a few KB, not kept.
  private static final ThreadLocal<Deflater> DEFLATERS =
      ThreadLocal.withInitial(() -> new Deflater(Deflater.BEST_COMPRESSION));

  /** Whether a record was packed ({@link #pack}); JSON starts with another byte. */
  static boolean packed(byte[] bytes) {
    return bytes.length > 0 && bytes[0] == PACKED;
  }

  /**
   * The JSON document packed: {@link #PACKED}, then the document deflated; a document larger than
   * {@link #MAX_UNPACKED} as it is (no reader would unpack it).
   */
  static byte[] pack(byte[] json) {
    if (json.length > MAX_UNPACKED) {
      return json;
    }
    Deflater d = DEFLATERS.get();
    d.reset();
    d.setDictionary(DICTIONARY);
    d.setInput(json);
    d.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream(json.length / 2 + 32);
    out.write(PACKED);
    byte[] buffer = new byte[512];
    while (!d.finished()) {
      out.write(buffer, 0, d.deflate(buffer));
    }
    return out.toByteArray();
  }

  /**
   * The JSON document a packed record holds.
   *
   * @throws DataFormatException when the record is cut short, fails its checksum, or was packed
   *     against another dictionary
   */
  static byte[] unpack(byte[] packed) throws DataFormatException {
    Inflater i = new Inflater();
    try {
      return unpack(i, packed);
    } finally {
      i.end();
    }
  }

  private static byte[] unpack(Inflater i, byte[] packed) throws DataFormatException {
    i.setInput(packed, 1, packed.length - 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream(packed.length * 4);
    byte[] buffer = new byte[1024];
    while (!i.finished()) {
      int n = i.inflate(buffer);
      if (n == 0 && i.needsDictionary()) {
        try {
          i.setDictionary(DICTIONARY);
        } catch (IllegalArgumentException e) {
          throw new DataFormatException("a view packed against another dictionary");
        }
      } else if (n == 0 && !i.finished()) {
        throw new DataFormatException("a packed view cut short");
      }
      out.write(buffer, 0, n);
      if (out.size() > MAX_UNPACKED) {
        throw new DataFormatException("a packed view of more than " + MAX_UNPACKED + " bytes");
      }
    }
    if (i.getRemaining() > 0) {
      throw new DataFormatException(i.getRemaining() + " byte(s) after a packed view");
    }
    return out.toByteArray();
  }
}
