package dev.sebridge.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.spi.ReceivedCommand;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A command sent in CloudEvents <em>binary</em> mode (the attributes in headers, the JWS as the
 * value), turned into the structured form the verifier reads, so both modes pass the same checks.
 * The Kafka binding names the headers {@code ce_<attribute>} and the data's type {@code
 * content-type}; the AMQP binding (Event Hubs) {@code cloudEvents:<attribute>} or {@code
 * cloudEvents_<attribute>}. A record whose content type is {@code application/cloudevents...}, or
 * without {@code specversion} in its headers, is structured mode and is returned as it came (a
 * structured event may repeat attributes in headers, as {@code sebridge approve} does on Event
 * Hubs). Nothing here is trusted: the verifier checks everything after.
 */
public final class BinaryCloudEvent {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> PREFIXES = List.of("ce_", "cloudevents:", "cloudevents_");
  private static final List<String> ATTRIBUTES =
      List.of(
          "specversion", "id", "source", "type", "subject", "time", "dataschema", "partitionkey");

  private BinaryCloudEvent() {}

  /** The command as a structured-mode CloudEvent. */
  public static byte[] structured(ReceivedCommand c) {
    Map<String, String> h = c.headers();
    String type = h.getOrDefault("content-type", "");
    if (type.toLowerCase(java.util.Locale.ROOT).startsWith("application/cloudevents")) {
      return c.payload(); // structured mode, whatever attributes the headers repeat
    }
    String prefix =
        PREFIXES.stream().filter(p -> h.containsKey(p + "specversion")).findFirst().orElse(null);
    if (prefix == null) {
      return c.payload();
    }
    ObjectNode ce = JSON.createObjectNode();
    for (String a : ATTRIBUTES) {
      String v = h.get(prefix + a);
      if (v != null) {
        ce.put(a, v);
      }
    }
    String contentType = h.getOrDefault("content-type", h.get(prefix + "datacontenttype"));
    if (contentType != null) {
      ce.put("datacontenttype", contentType);
    }
    ce.put("data", new String(c.payload(), StandardCharsets.UTF_8).trim());
    try {
      return JSON.writeValueAsBytes(ce);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
