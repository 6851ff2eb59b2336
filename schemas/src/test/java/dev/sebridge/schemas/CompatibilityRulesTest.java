package dev.sebridge.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Within v1 only optional fields are added: checked between every pair of released versions. */
class CompatibilityRulesTest {

  @Test
  void everyReleasedVersionIsCompatibleWithTheOnesBefore() {
    Schemas.RELEASED.forEach(
        (kind, versions) -> {
          for (int i = 1; i < versions.size(); i++) {
            assertThat(
                    CompatibilityRules.violations(
                        Schemas.tree(kind, versions.get(i - 1)),
                        Schemas.tree(kind, versions.get(i))))
                .as("%s %s -> %s", kind, versions.get(i - 1), versions.get(i))
                .isEmpty();
          }
        });
  }

  static ObjectNode v10() {
    return (ObjectNode) Schemas.tree(SchemaKind.ENVELOPE, "1.0");
  }

  static ObjectNode data(JsonNode schema) {
    return (ObjectNode) schema.at("/$defs/data");
  }

  @Test
  void addingAnOptionalFieldIsAllowed() {
    ObjectNode v11 = v10();
    ((ObjectNode) data(v11).get("properties")).putObject("maintenanceWindow").put("type", "string");
    v11.put("$id", "urn:sebridge:schema:scheduledevent:1.1");
    assertThat(CompatibilityRules.violations(v10(), v11)).isEmpty();
  }

  @Test
  void makingAFieldRequiredIsNot() {
    ObjectNode v11 = v10();
    ((ObjectNode) data(v11).get("properties")).putObject("maintenanceWindow").put("type", "string");
    ((ArrayNode) data(v11).get("required")).add("maintenanceWindow");
    assertThat(CompatibilityRules.violations(v10(), v11))
        .singleElement()
        .asString()
        .contains("required changed");
  }

  @Test
  void removingOrRetypingAFieldIsNot() {
    ObjectNode removed = v10();
    ((ObjectNode) data(removed).get("properties")).remove("previousStatus");
    assertThat(CompatibilityRules.violations(v10(), removed))
        .anyMatch(v -> v.contains("previousStatus was removed"));
    ObjectNode retyped = v10();
    ((ObjectNode) data(retyped).at("/properties/documentIncarnation")).put("type", "string");
    assertThat(CompatibilityRules.violations(v10(), retyped))
        .anyMatch(v -> v.contains("documentIncarnation/type changed"));
  }

  @Test
  void narrowingAnEnumOrAddingAConstraintIsNot() {
    ObjectNode narrowed = v10();
    ((ObjectNode) data(narrowed).at("/properties/transition"))
        .set(
            "enum",
            new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(List.of("Scheduled")));
    assertThat(CompatibilityRules.violations(v10(), narrowed)).isNotEmpty();
    ObjectNode constrained = v10();
    ((ObjectNode) data(constrained).at("/properties/documentIncarnation")).put("maximum", 1000);
    assertThat(CompatibilityRules.violations(v10(), constrained))
        .anyMatch(v -> v.contains("new constraint"));
  }
}
