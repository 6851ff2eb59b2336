package dev.sebridge.fleet.inventory;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.management.AzureEnvironment;
import com.azure.core.management.profile.AzureProfile;
import com.azure.resourcemanager.resourcegraph.ResourceGraphManager;
import com.azure.resourcemanager.resourcegraph.models.QueryRequest;
import com.azure.resourcemanager.resourcegraph.models.QueryRequestOptions;
import com.azure.resourcemanager.resourcegraph.models.QueryResponse;
import com.azure.resourcemanager.resourcegraph.models.ResultFormat;
import com.azure.resourcemanager.resourcegraph.models.ResultTruncated;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.fleet.model.InventoryVm;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The VMs and scale-set instances Azure Resource Graph lists in the configured subscriptions or
 * management groups ({@code fleet.inventory.*}), read whole through the Azure SDK ({@code
 * azure-resourcemanager-resourcegraph}: its pipeline authenticates, and retries 429 and 5xx as
 * Azure asks), a thousand rows a page. Two queries: {@code resources} has the VMs (flexible scale
 * sets' included), {@code computeresources} the instances of uniform scale sets.
 *
 * <p>A read is all or nothing: a page that fails, an answer that is not a list of rows, or one
 * truncated without a token to go on throws, and nothing of the read is used (an incomplete list
 * would make VMs unknown). A row without a vmId is left out and logged.
 */
public final class ResourceGraphInventory {
  private static final Logger LOG = LoggerFactory.getLogger(ResourceGraphInventory.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Rows per page (Resource Graph's most). */
  static final int PAGE = 1000;

  /** Pages per query at most (a million VMs): a server that never stops paging is an error. */
  static final int MOST_PAGES = 1000;

  private static final String PROJECT =
      " | project id, name, vmId = tostring(properties.vmId), subscriptionId, resourceGroup,"
          + " location, zone = tostring(zones[0]), tags, ";

  /** VMs, those of flexible scale sets included. */
  static final String VMS =
      "resources | where type =~ 'microsoft.compute/virtualmachines'%s"
          + PROJECT
          + "scaleSet = tostring(split(tostring(properties.virtualMachineScaleSet.id), '/')[8]),"
          + " availabilitySet = tostring(split(tostring(properties.availabilitySet.id), '/')[8])";

  /** Scheduled events as Azure keeps them (central delivery, preview). */
  static final String MAINTENANCE =
      "maintenanceresources | where type =~ 'microsoft.maintenance/scheduledevents'"
          + " | project id, name, type, location, properties";

  /** Instances of uniform scale sets. */
  static final String SCALE_SET_VMS =
      "computeresources | where type =~ 'microsoft.compute/virtualmachinescalesets/virtualmachines'%s"
          + PROJECT
          + "scaleSet = tostring(split(id, '/')[8]), availabilitySet = ''";

  /** Where to look, and how. */
  public record Scope(List<String> subscriptions, List<String> managementGroups, Tag tag) {
    public Scope {
      subscriptions = List.copyOf(subscriptions);
      managementGroups = List.copyOf(managementGroups);
    }
  }

  /** Only VMs with this tag (value compared case-insensitively, as Azure compares tags). */
  public record Tag(String name, String value) {
    /** The KQL filter ({@code name} and {@code value} hold no quote: the configuration checks). */
    String filter() {
      return " | where tostring(tags['" + name + "']) =~ '" + value + "'";
    }
  }

  private final ResourceGraphManager manager;
  private final Scope scope;

  /**
   * @param endpoint Azure Resource Manager ({@code https://management.azure.com}, or a sovereign
   *     cloud's); the token's scope is {@code <endpoint>/.default}
   */
  public ResourceGraphInventory(
      URI endpoint, TokenCredential credential, HttpClient http, Scope scope) {
    String arm = endpoint.toString().replaceAll("/+$", "");
    AzureEnvironment env =
        new AzureEnvironment(
            Map.of("resourceManagerEndpointUrl", arm + "/", "managementEndpointUrl", arm + "/"));
    this.manager =
        ResourceGraphManager.configure()
            .withHttpClient(http)
            .withScope(arm + "/.default")
            .authenticate(credential, new AzureProfile(null, null, env));
    this.scope = scope;
  }

  /** Every VM in scope, by lower-case vmId. */
  public Map<String, InventoryVm> read() {
    Map<String, InventoryVm> out = new TreeMap<>();
    String filter = scope.tag() == null ? "" : scope.tag().filter();
    for (String query : List.of(VMS, SCALE_SET_VMS)) {
      for (InventoryVm vm : query(String.format(query, filter), ResourceGraphInventory::vm)) {
        out.put(InventoryVm.key(vm.vmId()), vm);
      }
    }
    return out;
  }

  /**
   * Every scheduled event Azure keeps for the VMs in scope ({@code maintenanceresources}, with
   * central delivery turned on for them): rows of id, name (the EventId), type, location and
   * properties, as Event Grid's {@code resourceInfo} carries them. The whole list, or an exception.
   */
  public List<JsonNode> maintenanceEvents() {
    return query(MAINTENANCE, row -> row);
  }

  /**
   * Every row of a query, page by page, each read by {@code row} (null: left out, counted in a
   * warning); an exception when a page fails or the answer cannot be complete.
   */
  private <T> List<T> query(String kql, java.util.function.Function<JsonNode, T> row) {
    List<T> out = new ArrayList<>();
    String token = null;
    int skipped = 0;
    for (int page = 0; page < MOST_PAGES; page++) {
      QueryRequest req =
          new QueryRequest()
              .withQuery(kql)
              .withOptions(
                  new QueryRequestOptions()
                      .withTop(PAGE)
                      .withSkipToken(token)
                      .withResultFormat(ResultFormat.OBJECT_ARRAY));
      if (!scope.subscriptions().isEmpty()) {
        req.withSubscriptions(scope.subscriptions());
      }
      if (!scope.managementGroups().isEmpty()) {
        req.withManagementGroups(scope.managementGroups());
      }
      QueryResponse r = manager.resourceProviders().resources(req);
      JsonNode rows = JSON.valueToTree(r.data());
      if (rows == null || !rows.isArray()) {
        throw new IllegalStateException(
            "Resource Graph answered a page without a list of rows: " + abbreviated(rows));
      }
      for (Iterator<JsonNode> it = rows.elements(); it.hasNext(); ) {
        T t = row.apply(it.next());
        if (t == null) {
          skipped++;
        } else {
          out.add(t);
        }
      }
      token = r.skipToken();
      if (token == null || token.isBlank()) {
        if (r.resultTruncated() == ResultTruncated.TRUE) {
          throw new IllegalStateException(
              "Resource Graph truncated the answer and gave no token to read the rest");
        }
        if (skipped > 0) {
          LOG.warn("inventory: {} row(s) without a vmId left out", skipped);
        }
        return out;
      }
    }
    throw new IllegalStateException(
        "Resource Graph still had pages after " + MOST_PAGES + " of " + PAGE + " rows");
  }

  /** A row as a VM, or null without a vmId. */
  static InventoryVm vm(JsonNode row) {
    String vmId = text(row, "vmId");
    if (vmId == null) {
      return null;
    }
    Map<String, String> tags = new LinkedHashMap<>();
    row.path("tags").fields().forEachRemaining(f -> tags.put(f.getKey(), f.getValue().asText()));
    return new InventoryVm(
        vmId,
        text(row, "id"),
        text(row, "name"),
        text(row, "subscriptionId"),
        text(row, "resourceGroup"),
        text(row, "location"),
        text(row, "zone"),
        text(row, "scaleSet"),
        text(row, "availabilitySet"),
        tags);
  }

  private static String text(JsonNode row, String field) {
    JsonNode v = row.path(field);
    return v.isTextual() && !v.asText().isBlank() ? v.asText() : null;
  }

  private static String abbreviated(JsonNode n) {
    String s = String.valueOf(n);
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
