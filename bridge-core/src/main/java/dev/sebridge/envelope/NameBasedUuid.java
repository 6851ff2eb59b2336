package dev.sebridge.envelope;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/** RFC 4122 version 5 (SHA-1, name-based) UUIDs: the same name gives the same id, everywhere. */
public final class NameBasedUuid {
  /** The namespace of sebridge envelope ids: UUIDv5 of the URL namespace and "urn:sebridge". */
  public static final UUID SEBRIDGE_NAMESPACE =
      v5(UUID.fromString("6ba7b811-9dad-11d1-80b4-00c04fd430c8"), "urn:sebridge");

  private NameBasedUuid() {}

  public static UUID v5(UUID namespace, String name) {
    MessageDigest sha1;
    try {
      sha1 = MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by the Java platform", e);
    }
    ByteBuffer ns = ByteBuffer.allocate(16);
    ns.putLong(namespace.getMostSignificantBits()).putLong(namespace.getLeastSignificantBits());
    sha1.update(ns.array());
    byte[] h = sha1.digest(name.getBytes(StandardCharsets.UTF_8));
    h[6] = (byte) ((h[6] & 0x0f) | 0x50); // version 5
    h[8] = (byte) ((h[8] & 0x3f) | 0x80); // IETF variant
    ByteBuffer b = ByteBuffer.wrap(h, 0, 16);
    return new UUID(b.getLong(), b.getLong());
  }
}
