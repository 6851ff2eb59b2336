package dev.sebridge.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The golden examples: {@code src/test/resources/v1/<version>/<kind>/(valid|invalid)/*.json}. */
final class GoldenExamples {
  static final Path ROOT = Path.of("src/test/resources/v1");
  static final ObjectMapper JSON = new ObjectMapper();

  record Example(String version, String kind, boolean valid, Path path) {
    byte[] bytes() {
      try {
        return Files.readAllBytes(path);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    JsonNode json() {
      try {
        return JSON.readTree(bytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String toString() {
      return version + "/" + kind + "/" + (valid ? "valid" : "invalid") + "/" + path.getFileName();
    }
  }

  private GoldenExamples() {}

  static List<Example> all() {
    try (Stream<Path> files = Files.walk(ROOT)) {
      return files
          .filter(p -> p.toString().endsWith(".json"))
          .sorted()
          .map(
              p -> {
                Path rel = ROOT.relativize(p);
                return new Example(
                    rel.getName(0).toString(),
                    rel.getName(1).toString(),
                    rel.getName(2).toString().equals("valid"),
                    p);
              })
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
