package dev.sebridge.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.jackson.JsonFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Every valid envelope example is a CloudEvent as the CloudEvents Java SDK reads it. */
class CloudEventsSdkTest {
  static final EventFormat FORMAT =
      EventFormatProvider.getInstance().resolveFormat(JsonFormat.CONTENT_TYPE);

  @TestFactory
  Stream<DynamicTest> validExamplesAreCloudEvents() {
    return GoldenExamples.all().stream()
        .filter(e -> e.valid() && !e.kind().startsWith("command"))
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.toString(),
                    () -> {
                      CloudEvent ce = FORMAT.deserialize(e.bytes());
                      assertThat(ce.getSpecVersion().toString()).isEqualTo("1.0");
                      assertThat(ce.getId()).isEqualTo(e.json().get("id").asText());
                      assertThat(ce.getType()).isEqualTo(e.json().get("type").asText());
                      assertThat(ce.getSource().toString())
                          .isEqualTo(e.json().get("source").asText());
                      assertThat(ce.getDataSchema().toString())
                          .isEqualTo(e.json().get("dataschema").asText());
                      assertThat(ce.getExtension("partitionkey"))
                          .isEqualTo(e.json().get("partitionkey").asText());
                      assertThat(ce.getData()).isNotNull();
                    }));
  }
}
