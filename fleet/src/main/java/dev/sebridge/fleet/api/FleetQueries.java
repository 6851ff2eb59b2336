package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.CentralReport;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.Source;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.streams.KeyValue;

/**
 * What the API answers, as JSON, from the views: events grouped by EventId with per-VM status
 * counts and the time left to NotBefore; VMs; approval requests. No business logic here beyond
 * filtering and counting what the views hold.
 */
public final class FleetQueries {
  private final FleetViews views;
  private final Clock clock;

  public FleetQueries(FleetViews views, Clock clock) {
    this.views = views;
    this.clock = clock;
    this.approvals = new ApprovalQueries(views, clock);
    this.vmQueries = new VmQueries(views, clock);
  }

  private final ApprovalQueries approvals;
  private final VmQueries vmQueries;

  /** {@code GET /api/approvals} ({@link ApprovalQueries}). */
  public ObjectNode approvals(Map<String, String> query) {
    return approvals.list(query);
  }

  /**
   * Filters of {@code GET /api/events}: null means any.
   *
   * @param open true: only events some VM is not done with; false: only closed ones
   * @param status only the VMs in this status of the event are counted (scheduled, approved,
   *     started, completed, canceled, inferred), and events without any are left out
   * @param resourceGroup likewise, VMs of this resource group (case-insensitive)
   * @param text in the event's id, description or a VM name it lists (case-insensitive)
   */
  public record EventFilter(
      Boolean open,
      String type,
      String source,
      String zone,
      String scaleSet,
      String subscription,
      String status,
      String resourceGroup,
      String text) {
    public EventFilter(
        Boolean open,
        String type,
        String source,
        String zone,
        String scaleSet,
        String subscription) {
      this(open, type, source, zone, scaleSet, subscription, null, null, null);
    }

    boolean byVm() {
      return zone != null
          || scaleSet != null
          || subscription != null
          || status != null
          || resourceGroup != null;
    }

    boolean byText(EventView e) {
      return ListAnswers.mentions(text, e.eventId(), e.description())
          || ListAnswers.mentions(text, e.resources());
    }
  }

  /**
   * A page of a list: at most {@code limit} items after the store key {@code after} (null: the
   * first page).
   */
  public record Page(int limit, String after) {
    public static final int DEFAULT = 500;
    public static final int MOST = 1_000;

    public Page {
      if (limit < 1 || limit > MOST) {
        throw new ApiException(400, "limit must be 1 to " + MOST);
      }
    }

    /**
     * The page of {@code list} a request's {@code limit} and {@code cursor} ask for (both checked
     * against the contract by then; a cursor of another list is refused: {@link Cursors}).
     */
    public static Page of(Map<String, String> query, String list) {
      return of(query, list, DEFAULT);
    }

    /** The same, with a list's own default page size (its contract's). */
    public static Page of(Map<String, String> query, String list, int byDefault) {
      int limit = query.containsKey("limit") ? Integer.parseInt(query.get("limit")) : byDefault;
      String cursor = query.get("cursor");
      return new Page(limit, cursor == null ? null : Cursors.after(list, cursor));
    }
  }

  /** The lists' names in their cursors. */
  public static final String EVENTS = "events";

  public static final String VMS = VmQueries.VMS;

  public ObjectNode events(EventFilter f, Page page) {
    Map<String, Optional<VmView>> read = new HashMap<>();
    Function<String, VmView> vm = id -> read.computeIfAbsent(id, views::vm).orElse(null);
    Predicate<VmEventState> ofInterest = vmFilter(f, vm);
    Predicate<EventView> keep =
        e ->
            (f.open() == null || e.open() == f.open())
                && (f.type() == null || f.type().equalsIgnoreCase(e.eventType()))
                && (f.source() == null || f.source().equalsIgnoreCase(e.eventSource()))
                && f.byText(e)
                // (every VM of the event tested: what the answer shows of it is read now, and
                // counts against the page's budget)
                && (!f.byVm() || e.vms().values().stream().filter(ofInterest).count() > 0);
    boolean readsVms = f.subscription() != null || f.resourceGroup() != null;
    KeyScans.Reading<EventView> reading =
        KeyScans.reading(
            keep,
            read,
            e ->
                readsVms
                    ? (int) e.vms().keySet().stream().filter(id -> !read.containsKey(id)).count()
                    : 0);
    List<KeyValue<String, EventView>> found =
        Boolean.TRUE.equals(f.open())
            ? views.openEventsAfter(page.after(), reading, page.limit() + 1)
            : views.eventsAfter(page.after(), reading, page.limit() + 1);
    return ListAnswers.page(
        EVENTS,
        "events",
        found,
        page.limit(),
        clock,
        (a, kv) ->
            a.add(summary(kv.value, kv.value.vms().values().stream().filter(ofInterest).toList())));
  }

  private static Predicate<VmEventState> vmFilter(EventFilter f, Function<String, VmView> vms) {
    return v ->
        (f.zone() == null || f.zone().equals(v.zone()))
            && (f.scaleSet() == null || f.scaleSet().equalsIgnoreCase(v.scaleSet()))
            && (f.status() == null || f.status().equals(v.status()))
            && (f.subscription() == null
                || Optional.ofNullable(vms.apply(v.vmId()))
                    .map(VmView::subscriptionId)
                    .map(f.subscription()::equalsIgnoreCase)
                    .orElse(false))
            && (f.resourceGroup() == null
                || Optional.ofNullable(vms.apply(v.vmId()))
                    .map(VmView::resourceGroup)
                    .map(f.resourceGroup()::equalsIgnoreCase)
                    .orElse(false));
  }

  public Optional<ObjectNode> event(String eventId) {
    return views
        .event(eventId)
        .map(
            e -> {
              ObjectNode n = summary(e, List.copyOf(e.vms().values()));
              ArrayNode list = n.putArray("vms");
              e.vms().values().forEach(v -> list.add(vmState(v, views.silent(v.vmId()))));
              return n;
            });
  }

  /** An event's summary; a VM's silence is the views' word ({@link FleetViews#silent}). */
  private ObjectNode summary(EventView e, List<VmEventState> vmsOfInterest) {
    Instant now = clock.instant();
    ObjectNode n = JsonSerde.JSON.createObjectNode();
    n.put("eventId", e.eventId());
    n.put("eventType", e.eventType());
    n.put("eventSource", e.eventSource());
    n.put("notBefore", e.notBefore() == null ? null : e.notBefore().toString());
    if (e.notBefore() == null) {
      n.putNull("secondsToNotBefore");
    } else {
      n.put("secondsToNotBefore", Duration.between(now, e.notBefore()).toSeconds());
    }
    if (e.durationInSeconds() == null) {
      n.putNull("durationInSeconds");
    } else {
      n.put("durationInSeconds", e.durationInSeconds());
    }
    n.put("description", e.description());
    ArrayNode res = n.putArray("resources");
    e.resources().forEach(res::add);
    // Listed VMs from which no agent reported the event: no agent, a silent one, or not ours.
    java.util.Set<String> reporting = new java.util.TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    e.vms().values().forEach(v -> reporting.add(Objects.requireNonNullElse(v.name(), "")));
    ArrayNode unreported = n.putArray("unreported");
    e.resources().stream().filter(r -> !reporting.contains(r)).forEach(unreported::add);
    n.put("open", e.open());
    n.put("firstSeenAt", str(e.firstSeenAt()));
    n.put("lastSeenAt", str(e.lastSeenAt()));
    n.put("closedAt", str(e.closedAt()));
    n.put("firstSeenBy", (e.firstSeenBy() == null ? Source.AGENT : e.firstSeenBy()).json());
    CentralReport central = e.central();
    if (central != null) {
      ObjectNode c = n.putObject("central");
      c.put("status", central.status().azureName());
      c.put("resourceId", central.resourceId());
      ArrayNode names = c.putArray("resources");
      central.resources().forEach(names::add);
      c.put("firstSeenAt", str(central.firstSeenAt()));
      c.put("lastSeenAt", str(central.lastSeenAt()));
    }
    n.put("vmCount", vmsOfInterest.size());
    Map<String, Integer> counts = new TreeMap<>();
    Map<String, Integer> zones = new TreeMap<>();
    Map<String, Integer> scaleSets = new TreeMap<>();
    int silent = 0;
    for (VmEventState v : vmsOfInterest) {
      counts.merge(v.status(), 1, Integer::sum);
      zones.merge(Objects.requireNonNullElse(v.zone(), "-"), 1, Integer::sum);
      scaleSets.merge(Objects.requireNonNullElse(v.scaleSet(), "-"), 1, Integer::sum);
      if (views.silent(v.vmId())) {
        silent++;
      }
    }
    n.set("counts", JsonSerde.JSON.valueToTree(counts));
    n.put("silentAgents", silent);
    n.set("zones", JsonSerde.JSON.valueToTree(zones));
    n.set("scaleSets", JsonSerde.JSON.valueToTree(scaleSets));
    return n;
  }

  private static ObjectNode vmState(VmEventState v, boolean silent) {
    ObjectNode n = JsonSerde.JSON.valueToTree(v);
    n.put("silent", silent);
    return n;
  }

  /** The campaigns' list's name in its cursors. */
  public static final String CAMPAIGNS = "campaigns";

  /** Campaigns on a page when the request does not say ({@code limit}'s default). */
  static final int CAMPAIGNS_PAGE = 100;

  /**
   * {@code GET /api/campaigns}: the campaigns with an open event of this type, source and text
   * (null: any), a page at a time in the order of their first event's first sighting ({@link
   * CampaignIndex.Members#order}, the cursor's key). The index lists them; only the page's events
   * are read.
   */
  public ObjectNode campaigns(String type, String source, String text, Page page) {
    List<KeyValue<String, CampaignIndex.Members>> found =
        views.campaigns().campaigns().stream()
            .filter(CampaignIndex.Members::open)
            .filter(m -> m.matches(type, source, text))
            .map(m -> KeyValue.pair(m.order(), m))
            .filter(kv -> page.after() == null || kv.key.compareTo(page.after()) > 0)
            .sorted(Comparator.comparing((KeyValue<String, CampaignIndex.Members> kv) -> kv.key))
            .limit(page.limit() + 1L)
            .toList();
    return ListAnswers.page(
        CAMPAIGNS,
        CAMPAIGNS,
        found,
        page.limit(),
        clock,
        (array, kv) ->
            Campaigns.read(kv.value, views)
                .filter(CampaignView::isOpen) // (closed since the index listed it)
                .ifPresent(c -> array.add(c.json())));
  }

  /** One campaign, open or not, with its events. */
  public Optional<ObjectNode> campaign(String id) {
    return views
        .campaigns()
        .find(id)
        .flatMap(m -> Campaigns.read(m, views))
        .map(
            c -> {
              ObjectNode n = c.json();
              ArrayNode all = n.putArray("eventIds");
              c.eventIds().forEach(all::add);
              ArrayNode scheduled = n.putArray("scheduledEventIds");
              Campaigns.rollable(c, views).forEach(scheduled::add);
              return n;
            });
  }

  /**
   * @param silent only silent agents (true) or live ones (false); null: either
   * @param known only VMs the inventory lists (true) or unknown ones (false); null: either
   */
  public ObjectNode vms(Boolean silent, Boolean known, Page page) {
    return vms(new VmQueries.VmFilter(silent, known, null, null, null, null), page);
  }

  /** {@code GET /api/vms} ({@link VmQueries}). */
  public ObjectNode vms(VmQueries.VmFilter f, Page page) {
    return vmQueries.vms(f, page);
  }

  public Optional<ObjectNode> vm(String vmId) {
    return vmQueries.vm(vmId);
  }

  /** {@code GET /api/approvals/{requestId}} ({@link ApprovalQueries}). */
  public Optional<ObjectNode> request(String requestId) {
    return approvals.request(requestId);
  }

  private static String str(Instant t) {
    return t == null ? null : t.toString();
  }
}
