package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.auth.StaticTokens;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which tokens pass an address that spent its failures, and how long a good token is known. */
class BearerGateTest {
  static final String GOOD = "reader-token-0123456789ab";
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  final BearerGate gate =
      new BearerGate(
          StaticTokens.of(Map.of(GOOD, new Principal("dashboard", Principal.Role.READER))),
          Set.of(),
          nanos::get);

  void spend(String client) {
    for (int i = 0; i < BearerGate.FAILURES_PER_MINUTE; i++) {
      assertThat(gate.principal(client, "guess-" + i, "bearer token")).isEmpty();
    }
    assertThatThrownBy(() -> gate.principal(client, "guess-x", "bearer token"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(429));
  }

  @Test
  void aTokenThatAuthenticatedWithinTheHourPassesASpentAddressAndIsForgottenAfter() {
    assertThat(gate.principal("10.0.0.7", GOOD, "bearer token")).isPresent();
    spend("10.0.0.7");
    nanos.addAndGet(Duration.ofMinutes(59).toNanos());
    assertThat(gate.principal("10.0.0.7", GOOD, "bearer token")).isPresent(); // known again now

    nanos.addAndGet(Duration.ofMinutes(61).toNanos());
    // (another address: the limit's own minute runs on the real clock)
    spend("10.0.0.70");
    assertThatThrownBy(() -> gate.principal("10.0.0.70", GOOD, "bearer token"))
        .as("not heard of for an hour: a new token to a spent address")
        .isInstanceOf(ApiException.class);
    assertThat(gate.knownTokens()).isZero();
  }

  @Test
  void aValidTokenNeverSeenIsRefusedUnreadAtASpentAddress() {
    spend("10.0.0.8");
    assertThatThrownBy(() -> gate.principal("10.0.0.8", GOOD, "bearer token"))
        .isInstanceOf(ApiException.class);
    assertThat(gate.principal("10.0.0.9", GOOD, "bearer token")).isPresent();
  }

  @Test
  void atMostTenThousandGoodTokensAreRemembered() {
    // (an identity provider's tokens: any "token-" one is good)
    BearerGate big =
        new BearerGate(
            t ->
                t.startsWith("token-")
                    ? java.util.Optional.of(new Principal(t, Principal.Role.READER))
                    : java.util.Optional.empty(),
            Set.of(),
            nanos::get);
    for (int i = 0; i < BearerGate.REMEMBERED + 5; i++) {
      assertThat(big.principal("10.0.0.1", "token-" + i, "bearer token")).isPresent();
    }
    assertThat(big.knownTokens()).isEqualTo(BearerGate.REMEMBERED);
  }
}
