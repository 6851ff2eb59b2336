package dev.sebridge.simulator;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Duration;

/** A fault the simulator injects into answers to {@code GET /metadata/scheduledevents}. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Fault.Status.class, name = "status"),
  @JsonSubTypes.Type(value = Fault.Garbage.class, name = "garbage"),
  @JsonSubTypes.Type(value = Fault.NotADocument.class, name = "not-a-document"),
  @JsonSubTypes.Type(value = Fault.Delay.class, name = "delay"),
})
public sealed interface Fault {

  /** Answer with this HTTP status and body instead of the document. */
  record Status(int status, String body) implements Fault {
    public Status {
      body = body == null ? "{\"error\":\"simulated " + status + "\"}" : body;
    }
  }

  /** Answer 200 with a body that is not JSON at all (truncated, HTML, binary...). */
  record Garbage(String body) implements Fault {
    public Garbage {
      body = body == null ? "{\"DocumentIncarnation\": 7, \"Events\": [ {\"EventId\": " : body;
    }
  }

  /** Answer 200 with valid JSON that is not a scheduled events document. */
  record NotADocument(String body) implements Fault {
    public NotADocument {
      body = body == null ? "{\"message\":\"hello from a captive portal\"}" : body;
    }
  }

  /** Answer correctly, but only after this delay (in real milliseconds). */
  record Delay(long millis) implements Fault {
    public static Delay of(Duration d) {
      return new Delay(d.toMillis());
    }
  }
}
