package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The silence check reads only the views it must ({@link SilenceWatch}); what it decides is what a
 * scan of every view would: after each check, every VM's view says silent exactly when nothing came
 * from it for more than three of its heartbeat intervals, and every view of the VM state store is
 * the one the fleet's views show, in random histories of heartbeats with several intervals,
 * silences and returns.
 */
class SilenceTopologyTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  @Property(tries = 40)
  void afterEveryCheckEachViewIsSilentExactlyWhenAScanSaysSo(@ForAll long seed) throws Exception {
    Random rnd = new Random(seed);
    MutableClock clock = new MutableClock(T0);
    AgentEnvelopes agents = new AgentEnvelopes(clock);
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "silence-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    List<Instant> applied = new ArrayList<>();
    dev.sebridge.fleet.ViewTallies tallies = new dev.sebridge.fleet.ViewTallies();
    TopologyObserver recorder =
        new TopologyObserver() {
          @Override
          public void applied(Instant envelopeTime) {
            applied.add(envelopeTime);
          }
        };
    TopologyObserver observer = TopologyObserver.all(recorder, tallies);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            FleetTopology.build(
                FleetTopologyTest.TOPICS,
                new CommandIssuer(
                    new CommandSigner(
                        new ECKeyGenerator(Curve.P_256).keyID("k").generate(), "sebridge-fleet"),
                    Duration.ofMinutes(5)),
                3,
                Duration.ofHours(24),
                observer),
            p,
            T0)) {
      TestInputTopic<String, byte[]> envelopes =
          driver.createInputTopic(
              FleetTopologyTest.TOPICS.envelopes(),
              new StringSerializer(),
              new ByteArraySerializer());
      List<VmIdentity> vms = new ArrayList<>();
      List<Duration> intervals = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        vms.add(AgentEnvelopes.vm("vm-" + i, "web-" + i, "1", null));
        intervals.add(Duration.ofSeconds(List.of(10, 30, 60).get(rnd.nextInt(3))));
      }
      List<Instant> sent = new ArrayList<>();
      for (int step = 0; step < 40; step++) {
        // Some VMs speak (some of them often, some hardly ever), then a check is due.
        for (int i = 0; i < vms.size(); i++) {
          if (rnd.nextInt(i + 2) == 0) {
            envelopes.pipeInput(
                vms.get(i).vmId(), agents.heartbeat(vms.get(i), intervals.get(i)), clock.instant());
            sent.add(clock.instant());
          }
        }
        Duration by =
            Duration.ofSeconds(VmProcessor.SILENCE_CHECK.toSeconds() * (1 + rnd.nextInt(6)));
        clock.advance(by);
        driver.advanceWallClockTime(by);
        Instant now = clock.instant();
        KeyValueStore<String, VmView> state = driver.getKeyValueStore(FleetTopology.VM_STATE);
        KeyValueStore<String, VmView> views = driver.getKeyValueStore(FleetTopology.VMS_VIEW);
        try (KeyValueIterator<String, VmView> all = state.all()) {
          while (all.hasNext()) {
            KeyValue<String, VmView> kv = all.next();
            assertThat(kv.value.silent())
                .as("step %d: %s last seen %s, now %s", step, kv.key, kv.value.lastSeenAt(), now)
                .isEqualTo(VmViews.silent(kv.value, now, 3));
            assertThat(views.get(kv.key)).isEqualTo(kv.value);
          }
        }
        // The tallies the page and the metrics read, kept change by change, list what a scan of
        // the views finds silent.
        List<String> silentInViews = new ArrayList<>();
        try (KeyValueIterator<String, VmView> all = views.all()) {
          all.forEachRemaining(
              kv -> {
                if (kv.value.silent()) {
                  silentInViews.add(kv.key);
                }
              });
        }
        java.util.Collections.sort(silentInViews);
        assertThat(List.copyOf(tallies.silentKeys())).as("step %d", step).isEqualTo(silentInViews);
        assertThat(tallies.silentCount()).isEqualTo(silentInViews.size());
      }
      // Each envelope newer than its VM's view before counts its view delay once; silences none.
      assertThat(applied).containsExactlyInAnyOrderElementsOf(sent);
    }
  }
}
