package dev.sebridge.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The versioning rule of a major version, checked mechanically: a later minor version may add
 * optional properties and documentation, nothing else. Compared at every level of the two schema
 * trees: the same required properties, every property still present, and the same constraints
 * ({@code type}, {@code enum}, {@code const}, {@code pattern}, {@code minimum}, ...).
 */
public final class CompatibilityRules {
  private static final Set<String> FREE =
      Set.of("description", "title", "$id", "$comment", "examples");

  private CompatibilityRules() {}

  /** Violations of the rule going from {@code older} to {@code newer} (empty when compatible). */
  public static List<String> violations(JsonNode older, JsonNode newer) {
    List<String> out = new ArrayList<>();
    compare("", older, newer, out);
    return out;
  }

  private static void compare(String path, JsonNode older, JsonNode newer, List<String> out) {
    if (newer == null || newer.isMissingNode()) {
      out.add(path + " was removed");
      return;
    }
    if (older.isObject() && newer.isObject()) {
      Set<String> requiredOld = names(older.get("required"));
      Set<String> requiredNew = names(newer.get("required"));
      if (!requiredOld.equals(requiredNew)) {
        out.add(path + "/required changed from " + requiredOld + " to " + requiredNew);
      }
      for (Iterator<String> it = older.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        if (FREE.contains(f) || f.equals("required")) {
          continue;
        }
        compare(path + "/" + f, older.get(f), newer.get(f), out);
      }
      for (Iterator<String> it = newer.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        boolean addedProperties = path.endsWith("/properties") || path.endsWith("/$defs");
        if (!older.has(f) && !FREE.contains(f) && !addedProperties) {
          out.add(path + "/" + f + " is a new constraint");
        }
      }
      return;
    }
    if (!older.equals(newer)) {
      out.add(path + " changed from " + older + " to " + newer);
    }
  }

  private static Set<String> names(JsonNode arr) {
    Set<String> s = new HashSet<>();
    if (arr != null) {
      arr.forEach(n -> s.add(n.asText()));
    }
    return s;
  }
}
