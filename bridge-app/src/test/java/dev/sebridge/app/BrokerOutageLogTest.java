package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.SimVm;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A two-minute broker outage, with the product's own logging configuration: the Kafka clients'
 * connection chatter (about two WARN lines a second per agent before) stays out of the log; the
 * agent says once, after {@code publish.warn-after}, that the sink is failing, and once, with the
 * outage's length, that it delivers again. Two minutes cover every period of the path several times
 * over (request timeout 10 s, delivery timeout 25 s, the outbox's longest backoff 10 s, reconnect
 * backoff 1 s); five minutes, as before, added nothing but CI time.
 */
class BrokerOutageLogTest {
  static final SimVm VM = SimVm.of("outage-0", "eeeeeeee-0000-4000-8000-000000000000");
  static final Duration OUTAGE = Duration.ofMinutes(2);

  @RegisterExtension static final AgentFixture fixture = AgentFixture.withKafka(VM);

  @Test
  void aTwoMinuteOutageLeavesAHandfulOfWarnLines() throws Exception {
    String events = fixture.topic("outage-events", 1);
    String commands = fixture.commandsTopic("outage-commands", 1);
    Map<String, String> s = new LinkedHashMap<>(fixture.commandsFrom(commands));
    s.put("sinks", "kafka,file");
    s.put("sink.kafka.bootstrap-servers", fixture.kafka().bootstrapServers());
    s.put("sink.kafka.topic", events);
    // The product's logging (LoggingConfigurator), as every agent process of the tests gets it.
    AgentProcess agent = fixture.process(VM, List.of(), s);
    String first = fixture.sim().addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())));
    fixture.out(VM).await(1, Duration.ofSeconds(60));
    long before = warnLines(agent);
    fixture.kafka().takeDown();
    long down = System.nanoTime();
    fixture.sim().addEvent(EventSpec.scheduled("Reboot", List.of(VM.name())));
    fixture.out(VM).await(2, Duration.ofSeconds(60));
    await()
        .atMost(OUTAGE.plusMinutes(1))
        .pollInterval(Duration.ofSeconds(5))
        .until(() -> System.nanoTime() - down >= OUTAGE.toNanos());
    fixture.kafka().bringBack();
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> agent.stderr().contains("sink kafka delivers again after an outage of"));
    List<String> warns =
        agent.stderr().lines().filter(l -> l.contains(" WARN ")).skip(before).toList();
    System.out.println(
        "OUTAGE "
            + warns.size()
            + " WARN lines in a "
            + OUTAGE.toMinutes()
            + "-minute broker outage: "
            + warns);
    assertThat(warns).as("WARN lines during the outage").hasSizeLessThanOrEqualTo(3);
    assertThat(warns).anyMatch(l -> l.contains("sink kafka has been failing for 3"));
    assertThat(agent.stderr()).doesNotContain("NetworkClient");
    assertThat(first).isNotBlank();
  }

  static long warnLines(AgentProcess agent) {
    return agent.stderr().lines().filter(l -> l.contains(" WARN ")).count();
  }
}
