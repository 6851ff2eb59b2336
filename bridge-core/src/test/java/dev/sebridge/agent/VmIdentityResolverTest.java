package dev.sebridge.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.imds.IdentitySources;
import dev.sebridge.imds.IdentitySources.NameSource;
import dev.sebridge.imds.IdentitySources.VmIdSource;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.ScheduledEventsDocument;
import dev.sebridge.imds.SmbiosUuid;
import dev.sebridge.imds.VmIdentity;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the identity comes from: IMDS's compute metadata; without it (Microsoft's mock server,
 * images that block it) the SMBIOS UUID and the host name after {@link
 * VmIdentityResolver#WARN_AT_ATTEMPT} attempts; configuration wins over both.
 */
class VmIdentityResolverTest {
  static final String VM_ID = "d0df4c54-4ecb-4a4b-9954-5bdf3ed5c3b8";
  static final String READ_ON_GEN1 = "544CDFD0-CB4E-4B4A-9954-5BDF3ED5C3B8";

  @TempDir Path dir;
  final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
  final FakeCompute imds = new FakeCompute();

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  @Test
  void withoutComputeMetadataTheVmIdIsTheSmbiosUuidAndTheNameTheHostName() throws Exception {
    VmIdentity v = resolve(Optional.empty(), Optional.empty(), gen1());
    assertThat(v.vmId()).isEqualTo(VM_ID);
    assertThat(v.name()).isEqualTo("web-host");
    assertThat(v.sources())
        .isEqualTo(new IdentitySources(VmIdSource.SMBIOS_SWAPPED, NameSource.HOSTNAME));
    assertThat(imds.calls.get())
        .as("IMDS asked first")
        .isGreaterThanOrEqualTo(VmIdentityResolver.WARN_AT_ATTEMPT);
  }

  /**
   * Any other failure than a 404 (IMDS blocked, down, slow at boot) is waited for longer: an IMDS
   * that answers late must not leave the agent on the host name for good.
   */
  @Test
  void otherFailuresThanNotServedFallBackOnlyAfterTenAttempts() throws Exception {
    imds.kind = ImdsFailure.Kind.CONNECTION;
    VmIdentity v = resolve(Optional.empty(), Optional.empty(), gen1());
    assertThat(v.sources())
        .isEqualTo(new IdentitySources(VmIdSource.SMBIOS_SWAPPED, NameSource.HOSTNAME));
    assertThat(imds.calls.get())
        .as("IMDS asked ten times first")
        .isGreaterThanOrEqualTo(VmIdentityResolver.FALLBACK_AT_ATTEMPT);
    // Only the first question waits as long as IMDS's first answer may take; the others as long
    // as any request (imds.request-timeout): a compute endpoint that never answers costs the
    // fallback minutes, not ten first-request timeouts (29 minutes at the defaults).
    assertThat(imds.timeouts.get(0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(imds.timeouts.subList(1, imds.timeouts.size()))
        .isNotEmpty()
        .containsOnly(Duration.ofMillis(300));
  }

  @Test
  void configurationWinsOverSmbiosAndTheHostName() throws Exception {
    VmIdentity v = resolve(Optional.empty(), Optional.of("web_3"), gen1());
    assertThat(v.name()).isEqualTo("web_3");
    assertThat(v.sources())
        .isEqualTo(new IdentitySources(VmIdSource.SMBIOS_SWAPPED, NameSource.CONFIG));

    v = resolve(Optional.of("11111111-2222-3333-4444-555555555555"), Optional.empty(), gen1());
    assertThat(v.vmId()).isEqualTo("11111111-2222-3333-4444-555555555555");
    assertThat(v.sources()).isEqualTo(new IdentitySources(VmIdSource.CONFIG, NameSource.HOSTNAME));
  }

  @Test
  void withoutSmbiosEitherItKeepsAskingImdsAndTakesItsAnswer() throws Exception {
    SmbiosUuid unreadable =
        SmbiosUuid.ofFile(dir.resolve("root-only"), SmbiosUuid.Order.AUTO, true);
    VmIdentityResolver r = resolver(Optional.empty(), Optional.empty(), unreadable);
    r.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> imds.calls.get() >= VmIdentityResolver.WARN_AT_ATTEMPT + 3);
    assertThat(r.now()).as("no identity without IMDS or SMBIOS").isEmpty();
    imds.answers.set(true);
    VmIdentity v = r.identity().get(30, TimeUnit.SECONDS);
    assertThat(v.vmId()).isEqualTo("from-imds");
    assertThat(v.sources()).isEqualTo(IdentitySources.IMDS);
  }

  @Test
  void computeMetadataIsTakenAtOnceAndSaysSo() throws Exception {
    imds.answers.set(true);
    VmIdentity v = resolve(Optional.empty(), Optional.empty(), gen1());
    assertThat(v.vmId()).isEqualTo("from-imds");
    assertThat(v.sources()).isEqualTo(IdentitySources.IMDS);

    v = resolve(Optional.of("configured"), Optional.empty(), gen1());
    assertThat(v.vmId()).isEqualTo("configured");
    assertThat(v.name()).isEqualTo("imds-name");
    assertThat(v.sources()).isEqualTo(new IdentitySources(VmIdSource.CONFIG, NameSource.IMDS));
  }

  private SmbiosUuid gen1() throws Exception {
    Path f = Files.writeString(dir.resolve("product_uuid"), READ_ON_GEN1 + "\n");
    return SmbiosUuid.ofFile(f, SmbiosUuid.Order.AUTO, true);
  }

  private VmIdentity resolve(Optional<String> id, Optional<String> name, SmbiosUuid smbios)
      throws Exception {
    imds.calls.set(0);
    VmIdentityResolver r = resolver(id, name, smbios);
    r.start();
    return r.identity().get(30, TimeUnit.SECONDS);
  }

  private VmIdentityResolver resolver(
      Optional<String> id, Optional<String> name, SmbiosUuid smbios) {
    return new VmIdentityResolver(
        imds,
        id,
        name,
        Duration.ofSeconds(1),
        Duration.ofMillis(300),
        Duration.ofMillis(5),
        smbios,
        () -> "web-host",
        scheduler);
  }

  /** Compute metadata that answers 404 (as the mock server does) until told to answer. */
  static final class FakeCompute implements Imds {
    final AtomicInteger calls = new AtomicInteger();
    final java.util.List<Duration> timeouts = new java.util.concurrent.CopyOnWriteArrayList<>();
    final AtomicBoolean answers = new AtomicBoolean();
    volatile ImdsFailure.Kind kind = ImdsFailure.Kind.NOT_FOUND;

    @Override
    public URI scheduledEventsUri() {
      return URI.create("http://169.254.169.254/metadata/scheduledevents");
    }

    @Override
    public ImdsResult<ScheduledEventsDocument> scheduledEvents(Duration timeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ImdsResult<VmIdentity> identity(Duration timeout) {
      calls.incrementAndGet();
      timeouts.add(timeout);
      if (answers.get()) {
        return new ImdsResult.Ok<>(
            new VmIdentity("from-imds", "imds-name", null, null, null, null, null, null, null)
                .withSources(IdentitySources.IMDS),
            Duration.ZERO);
      }
      return new ImdsResult.Failed<>(
          new ImdsFailure(kind, kind == ImdsFailure.Kind.NOT_FOUND ? 404 : 0, "no", Duration.ZERO));
    }

    @Override
    public ImdsResult<Integer> startEvents(List<String> eventIds, Duration timeout) {
      throw new UnsupportedOperationException();
    }
  }
}
