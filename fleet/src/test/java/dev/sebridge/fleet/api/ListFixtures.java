package dev.sebridge.fleet.api;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The views the lists' paging tests fill their stores with, all at {@link #T0}. */
final class ListFixtures {
  static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");

  private ListFixtures() {}

  /** A rollout's wave request for {@code eventId} (null: of no event), admitted, no result yet. */
  static RequestView request(String requestId, String eventId, List<String> vmIds) {
    return new RequestView(
        new ApprovalRequest(
            requestId,
            eventId,
            vmIds,
            "wave",
            "rollout:ro-1",
            T0,
            "rollout",
            false,
            null,
            true,
            null),
        null,
        Map.of());
  }

  /** An open event keyed {@code key}, its EventId the key in upper case. */
  static EventView event(String key, String type, String source, Map<String, VmEventState> parts) {
    return new EventView(
        key.toUpperCase(Locale.ROOT),
        type,
        source,
        T0,
        -1,
        "planned",
        List.of(),
        T0,
        T0,
        null,
        parts);
  }

  /** A live VM of resource group {@code rg}, in westeurope, of no scale set. */
  static VmView vm(String id, String zone, String subscription) {
    return new VmView(
        id,
        id,
        null,
        subscription,
        "rg",
        "westeurope",
        zone,
        null,
        "0.1.0",
        T0,
        T0,
        T0,
        60,
        Map.of(),
        false,
        Set.of(),
        null);
  }
}
