package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * How the contract reads an OpenAPI document's paths: the parts the published document does not use
 * yet (a path item's own parameters and fields, a literal path beside a template), so that using
 * them later does not quietly change what the API accepts.
 */
class RequestContractTest {
  private static final String DOCUMENT =
      """
      openapi: 3.1.0
      info: {title: t, version: "1"}
      paths:
        /things:
          summary: every thing
          description: a path item's fields that are not operations
          parameters:
            - {name: limit, in: query, schema: {type: integer, minimum: 1}}
            - {name: zone, in: query, schema: {type: string}}
          get:
            parameters:
              - {name: zone, in: query, schema: {type: string, maxLength: 3}}
          post:
            requestBody:
              content:
                application/json:
                  schema: {type: object}
        /things/{thingId}:
          get: {}
          delete: {}
        /things/latest:
          get: {}
      """;

  private static RequestContract contract() throws Exception {
    return RequestContract.of(new ObjectMapper(new YAMLFactory()).readTree(DOCUMENT));
  }

  @Test
  void aPathItemsFieldsThatAreNotOperationsAreNoMethods() throws Exception {
    assertThat(contract().methods("/things")).contains(Set.of("GET", "POST"));
  }

  @Test
  void aPathItemsParametersApplyToEachOperationAndAnOperationsOwnWin() throws Exception {
    RequestContract c = contract();
    assertThatCode(() -> c.checkQuery("GET", "/things", Map.of("limit", "5")))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> c.checkQuery("GET", "/things", Map.of("limit", "0")))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(400));
    // The operation's own zone (at most 3 characters) replaces the path item's (any string).
    assertThatThrownBy(() -> c.checkQuery("GET", "/things", Map.of("zone", "four")))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("zone");
    // POST declares none of its own: the path item's apply.
    assertThatThrownBy(() -> c.checkQuery("POST", "/things", Map.of("limit", "x")))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("limit");
    assertThatThrownBy(() -> c.checkQuery("GET", "/things", Map.of("misspelt", "1")))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("misspelt");
  }

  @Test
  void aLiteralPathMatchesBeforeATemplateWhateverTheDocumentsOrder() throws Exception {
    RequestContract c = contract();
    assertThat(c.methods("/things/latest")).contains(Set.of("GET"));
    assertThat(c.methods("/things/T1")).contains(Set.of("DELETE", "GET"));
    assertThat(c.methods("/elsewhere")).isEmpty();
  }

  @Test
  void thePublishedDocumentReadsAsBefore() {
    RequestContract c = RequestContract.published();
    assertThat(c.methods("/api/rollouts")).contains(Set.of("GET", "POST"));
    assertThat(c.methods("/api/events/E1/approve")).contains(Set.of("POST"));
    assertThat(c.methods("/api/campaigns/C1")).contains(Set.of("GET"));
  }
}
