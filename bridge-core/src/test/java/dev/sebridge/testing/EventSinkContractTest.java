package dev.sebridge.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.schemas.EnvelopeValidator;
import dev.sebridge.spi.EventSink;
import dev.sebridge.track.Transition;
import dev.sebridge.track.TransitionType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link EventSink} honours. A sink module's test extends this class and says
 * how to create its sink and how to read back what reached the destination.
 */
public abstract class EventSinkContractTest {
  protected EventSink sink;

  /** A fresh sink writing to a fresh destination. */
  protected abstract EventSink createSink() throws Exception;

  /**
   * The bodies (structured CloudEvents JSON) that reached the destination so far, in order, waiting
   * at most {@code timeout} for {@code expected} of them.
   */
  protected abstract List<String> delivered(int expected, Duration timeout) throws Exception;

  @BeforeEach
  void createTheSink() throws Exception {
    sink = createSink();
  }

  @AfterEach
  void closeTheSink() {
    if (sink != null) {
      sink.close(Duration.ofSeconds(10));
    }
  }

  /** Envelopes as the agent makes them: one VM, a lifecycle of {@code n} transitions. */
  public static List<Envelope> envelopes(String vmId, int n) {
    EnvelopeFactory f = new EnvelopeFactory(new AgentInfo("test", "host"), Clock.systemUTC());
    List<Envelope> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      try {
        ScheduledEvent e =
            DocumentParser.event(
                new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(
                        "{\"EventId\":\"E-"
                            + i
                            + "\",\"EventStatus\":\"Scheduled\",\"EventType\":\"Freeze\","
                            + "\"Resources\":[\"vm-"
                            + vmId
                            + "\"],\"NotBefore\":\"\",\"Description\":\"ünïcødé ✓\"}"));
        Envelope env =
            f.scheduledEvent(
                new Transition(TransitionType.SCHEDULED, e, null, i + 2, Instant.now(), false),
                VmIdentity.of(vmId, "vm-" + vmId));
        List<String> problems = EnvelopeValidator.validate(env.body());
        if (!problems.isEmpty()) {
          throw new AssertionError("the core produced an invalid envelope: " + problems);
        }
        out.add(env);
      } catch (Exception ex) {
        throw new AssertionError(ex);
      }
    }
    return out;
  }

  @Test
  void deliversEveryEnvelopeOfABatchInOrderAndByteForByte() throws Exception {
    List<Envelope> batch = envelopes("vm-contract-1", 5);
    sink.export(batch).get(30, TimeUnit.SECONDS);
    List<String> got = delivered(5, Duration.ofSeconds(30));
    assertThat(got).containsExactlyElementsOf(batch.stream().map(Envelope::bodyAsString).toList());
    // What reaches the destination is a valid envelope v1: no sink may mangle one.
    for (String body : got) {
      assertThat(EnvelopeValidator.validate(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .as(body)
          .isEmpty();
    }
  }

  @Test
  void successiveBatchesKeepTheirOrder() throws Exception {
    List<Envelope> all = envelopes("vm-contract-2", 6);
    sink.export(all.subList(0, 2)).get(30, TimeUnit.SECONDS);
    sink.export(all.subList(2, 3)).get(30, TimeUnit.SECONDS);
    sink.export(all.subList(3, 6)).get(30, TimeUnit.SECONDS);
    sink.flush().get(30, TimeUnit.SECONDS);
    assertThat(delivered(6, Duration.ofSeconds(30)))
        .containsExactlyElementsOf(all.stream().map(Envelope::bodyAsString).toList());
  }

  @Test
  void largestEnvelopeIsDelivered() throws Exception {
    EnvelopeFactory f = new EnvelopeFactory(new AgentInfo("test", "host"), Clock.systemUTC());
    ScheduledEvent e =
        DocumentParser.event(
            new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(
                    "{\"EventId\":\"BIG\",\"EventStatus\":\"Scheduled\",\"EventType\":\"Freeze\","
                        + "\"Resources\":[],\"Description\":\""
                        + "d".repeat(100_000)
                        + "\"}"));
    Envelope big =
        f.scheduledEvent(
            new Transition(TransitionType.SCHEDULED, e, null, 2, Instant.now(), false),
            VmIdentity.of("vm-big", "vm-big"));
    assertThat(big.size()).isBetween(Envelope.MAX_BYTES - 2048, Envelope.MAX_BYTES);
    sink.export(List.of(big)).get(30, TimeUnit.SECONDS);
    assertThat(delivered(1, Duration.ofSeconds(30))).containsExactly(big.bodyAsString());
  }

  @Test
  void anEmptyBatchSucceeds() throws Exception {
    sink.export(List.of()).get(30, TimeUnit.SECONDS);
  }

  @Test
  void shutdownIsIdempotentAndLaterExportsFail() throws Exception {
    sink.shutdown().get(30, TimeUnit.SECONDS);
    sink.shutdown().get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> sink.export(envelopes("vm-contract-3", 1)).get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
  }
}
