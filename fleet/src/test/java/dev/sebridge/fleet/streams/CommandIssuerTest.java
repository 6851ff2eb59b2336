package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.util.Base64URL;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.fleet.model.ApprovalRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The signing deadline and its circuit breaker: several request partitions share one exactly-once
 * transaction, so a hanging vault may cost one deadline, not one per request.
 */
class CommandIssuerTest {
  static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");

  /** A vault: counts its calls, and hangs or fails as told. */
  static class Vault implements JWSSigner {
    final AtomicInteger calls = new AtomicInteger();
    final CountDownLatch hang = new CountDownLatch(1);
    volatile boolean hanging;

    @Override
    public Base64URL sign(JWSHeader header, byte[] input) throws JOSEException {
      calls.incrementAndGet();
      if (hanging) {
        try {
          hang.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      throw new JOSEException("Key Vault: 503");
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
      return Set.of(JWSAlgorithm.ES256);
    }

    @Override
    public JCAContext getJCAContext() {
      return new JCAContext();
    }
  }

  static ApprovalRequest request(String id) {
    return new ApprovalRequest(id, "E1", List.of("vm-1", "vm-2"), "why", "alice", T0, "api")
        .admit();
  }

  /**
   * A name an agent would take for malformed (an agent reported it in the event's Resources: none
   * of Azure's names is such) is left out of the claim, which still holds the event to the others:
   * an honest agent refuses the event if IMDS lists a VM the claim does not give. Before, the whole
   * claim was dropped, and one such name reported by a hostile agent switched off the check for
   * every VM of the event. A claim of such names only is one blank name: agents refuse it as
   * malformed, so the event is not approved unchecked (and thousands of long names do not make
   * every command too large to send).
   */
  @Test
  void aNameAnAgentWouldTakeForMalformedIsLeftOutOfTheClaim() {
    for (String odd : List.of("web-1\nforged", "w".repeat(81), " ")) {
      ApprovalRequest r =
          new ApprovalRequest("r1", "E1", List.of("vm-1"), "why", "alice", T0, "api")
              .admit(List.of("web-0", odd));
      assertThat(ResourcesClaim.of(r)).as(odd).isEqualTo(Map.of("E1", List.of("web-0")));
    }
    ApprovalRequest plain =
        new ApprovalRequest("r1", "E1", List.of("vm-1"), "why", "alice", T0, "api")
            .admit(List.of("web-0", "w".repeat(80)));
    assertThat(ResourcesClaim.of(plain).get("E1")).hasSize(2);
    ApprovalRequest onlyOdd =
        new ApprovalRequest("r1", "E1", List.of("vm-1"), "why", "alice", T0, "api")
            .admit(List.of("x\u0000"));
    assertThat(ResourcesClaim.of(onlyOdd)).isEqualTo(Map.of("E1", List.of("")));
  }

  /**
   * A request's counted VMs go into each command's resources claim while they fit the command
   * schema's 16 KiB JWS; an event of more names goes without the claim (as before it), not as a
   * command every agent refuses as oversized.
   */
  @Test
  void theCountedVmsAreClaimedWhileTheCommandStaysWithinItsSize() throws Exception {
    java.util.function.IntFunction<List<String>> names =
        n -> java.util.stream.IntStream.range(0, n).mapToObj(i -> "web-scale-set_" + i).toList();
    ApprovalRequest fits =
        new ApprovalRequest("r1", "E1", List.of("vm-1"), "why", "alice", T0, "api")
            .admit(names.apply(400));
    ApprovalRequest tooMany =
        new ApprovalRequest("r2", "E1", List.of("vm-1"), "why", "alice", T0, "api")
            .admit(names.apply(500));
    try (CommandIssuer issuer =
        new CommandIssuer(
            new CommandSigner(
                new com.nimbusds.jose.jwk.gen.ECKeyGenerator(com.nimbusds.jose.jwk.Curve.P_256)
                    .keyID("k")
                    .generate(),
                "sebridge-fleet"),
            Duration.ofMinutes(5))) {
      var command =
          JsonSerde.JSON.readTree(
              issuer.command(fits, ResourcesClaim.of(fits), "vm-1", "fleet:r1:vm-1", T0));
      assertThat(command.get("data").asText().length()).isLessThanOrEqualTo(16_384);
      assertThat(
              com.nimbusds.jwt.SignedJWT.parse(command.get("data").asText())
                  .getJWTClaimsSet()
                  .getJSONObjectClaim("resources"))
          .containsOnlyKeys("E1");
      var without =
          JsonSerde.JSON.readTree(
              issuer.command(tooMany, ResourcesClaim.of(tooMany), "vm-1", "fleet:r2:vm-1", T0));
      assertThat(
              com.nimbusds.jwt.SignedJWT.parse(without.get("data").asText())
                  .getJWTClaimsSet()
                  .getClaim("resources"))
          .isNull();
    }
  }

  /**
   * A request made while the warm-up signs does not wait behind it: the warm-up has a thread of its
   * own. Before, its signatures went through the signing pool, and a request right after a start
   * queued behind them with its deadline running (a deadline missed so opens the breaker for 30 s).
   * Here the warm-up's first signature holds until the request is signed.
   */
  @Test
  void aRequestMadeDuringTheWarmUpIsSignedWithoutWaitingBehindIt() throws Exception {
    JWSSigner key =
        new com.nimbusds.jose.crypto.ECDSASigner(
            new com.nimbusds.jose.jwk.gen.ECKeyGenerator(com.nimbusds.jose.jwk.Curve.P_256)
                .keyID("k")
                .generate());
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger warming = new AtomicInteger();
    JWSSigner held =
        new Vault() { // its algorithms and context; signs with the key, holding the warm-up
          @Override
          public Base64URL sign(JWSHeader header, byte[] input) throws JOSEException {
            String in = new String(input, java.nio.charset.StandardCharsets.US_ASCII);
            String payload = new Base64URL(in.substring(in.indexOf('.') + 1)).decodeToString();
            if (payload.contains("\"aud\":\"warm-up-")) {
              warming.incrementAndGet();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return key.sign(header, input);
          }
        };
    try (CommandIssuer issuer =
        new CommandIssuer(
            new CommandSigner(held, JWSAlgorithm.ES256, "k", "fleet"),
            Duration.ofMinutes(5),
            Duration.ofSeconds(2))) {
      issuer.warmUp(CommandIssuer.PARALLEL * 4);
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> warming.get() >= 1);
      assertThat(issuer.commands(request("r1"), T0)).hasSize(2);
      assertThat(warming.get()).as("the warm-up still held at its first").isEqualTo(1);
    } finally {
      release.countDown();
    }
  }

  @Test
  void aMissedDeadlineFailsTheNextRequestsAtOnceWithoutAskingTheVault() {
    Vault vault = new Vault();
    vault.hanging = true;
    try (CommandIssuer issuer =
        new CommandIssuer(
            new CommandSigner(vault, JWSAlgorithm.ES256, "kv", "fleet"),
            Duration.ofMinutes(5),
            Duration.ofMillis(200))) {
      assertThatThrownBy(() -> issuer.commands(request("r1"), T0))
          .hasMessageContaining("took longer than PT0.2S");
      int asked = vault.calls.get();
      for (String r : List.of("r2", "r3", "r4", "r5", "r6")) {
        assertThatThrownBy(() -> issuer.commands(request(r), T0))
            .hasMessageContaining("missed its deadline of PT0.2S lately");
      }
      assertThat(vault.calls.get()).isEqualTo(asked);
    } finally {
      vault.hang.countDown();
    }
  }

  @Test
  void aVaultThatAnswersWithAnErrorFailsOnlyItsOwnRequest() {
    Vault vault = new Vault();
    try (CommandIssuer issuer =
        new CommandIssuer(
            new CommandSigner(vault, JWSAlgorithm.ES256, "kv", "fleet"),
            Duration.ofMinutes(5),
            Duration.ofSeconds(5))) {
      for (String r : List.of("r1", "r2", "r3")) {
        assertThatThrownBy(() -> issuer.commands(request(r), T0)).hasMessageContaining("503");
      }
      assertThat(vault.calls.get()).isEqualTo(6);
    }
  }

  /**
   * A vault that is slow but answers, request after request: no window of the transaction's length
   * spends more than the budget signing; past it, requests fail at once without asking the vault.
   */
  @Test
  void aSlowVaultSpendsAtMostTheBudgetInAWindow() {
    AtomicInteger asked = new AtomicInteger();
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    JWSSigner slow =
        new Vault() {
          @Override
          public Base64URL sign(JWSHeader header, byte[] input) {
            asked.incrementAndGet();
            clock.addAndGet(Duration.ofMillis(1_500).toNanos()); // each signature takes 1.5 s
            return Base64URL.encode(new byte[64]);
          }
        };
    try (CommandIssuer issuer =
        new CommandIssuer(
            new CommandSigner(slow, JWSAlgorithm.ES256, "kv", "fleet"),
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            new SigningBudget(Duration.ofSeconds(10), Duration.ofSeconds(5), clock::get))) {
      // Two signatures a request: 3 s of the budget's 5 s each.
      assertThat(issuer.commands(request("r1"), T0)).hasSize(2);
      assertThat(issuer.commands(request("r2"), T0)).hasSize(2);
      assertThatThrownBy(() -> issuer.commands(request("r3"), T0))
          .hasMessageContaining("signing took PT5S of the last PT10S already");
      assertThat(asked.get()).isEqualTo(4);
      clock.addAndGet(Duration.ofSeconds(10).toNanos());
      assertThat(issuer.commands(request("r4"), T0)).hasSize(2);
    }
  }

  /** A deadline cut short by what is left of the budget is the budget spent: no breaker opens. */
  @Test
  void aDeadlineTheBudgetCutShortOpensNoBreaker() {
    AtomicInteger asked = new AtomicInteger();
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    CountDownLatch release = new CountDownLatch(1);
    JWSSigner vault =
        new Vault() {
          @Override
          public Base64URL sign(JWSHeader header, byte[] input) {
            int n = asked.incrementAndGet();
            if (n <= 2) {
              clock.addAndGet(Duration.ofMillis(2_200).toNanos()); // 4.4 s of the 5 s
            } else if (n <= 4) {
              try {
                release.await(); // the second request outlasts what is left of the budget
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return Base64URL.encode(new byte[64]);
          }
        };
    try (CommandIssuer issuer =
        new CommandIssuer(
            new CommandSigner(vault, JWSAlgorithm.ES256, "kv", "fleet"),
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            new SigningBudget(Duration.ofSeconds(10), Duration.ofSeconds(5), clock::get))) {
      assertThat(issuer.commands(request("r1"), T0)).hasSize(2);
      assertThatThrownBy(() -> issuer.commands(request("r2"), T0))
          .hasMessageContaining("what was left of PT5S in PT10S");
      release.countDown();
      clock.addAndGet(Duration.ofSeconds(20).toNanos());
      assertThat(issuer.commands(request("r3"), T0)).hasSize(2);
    } finally {
      release.countDown();
    }
  }
}
