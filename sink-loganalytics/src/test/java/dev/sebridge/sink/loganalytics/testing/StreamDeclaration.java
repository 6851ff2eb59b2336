package dev.sebridge.sink.loganalytics.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The declared columns of the stream, read from {@code deploy/loganalytics/columns.json} (what the
 * table and the DCR are deployed with), and a check that a row fits them the way the service reads
 * it: no undeclared column, every value of its column's type.
 */
public final class StreamDeclaration {
  private final Map<String, String> columns;

  private StreamDeclaration(Map<String, String> columns) {
    this.columns = columns;
  }

  /** Finds {@code deploy/loganalytics/columns.json} from a module directory or the repository. */
  public static StreamDeclaration fromRepository() throws IOException {
    Path here = Path.of("").toAbsolutePath();
    for (Path p = here; p != null; p = p.getParent()) {
      Path f = p.resolve("deploy/loganalytics/columns.json");
      if (Files.exists(f)) {
        return read(f);
      }
    }
    throw new IOException("deploy/loganalytics/columns.json not found above " + here);
  }

  public static StreamDeclaration read(Path file) throws IOException {
    Map<String, String> cols = new LinkedHashMap<>();
    for (JsonNode c : new ObjectMapper().readTree(file.toFile())) {
      cols.put(c.get("name").asText(), c.get("type").asText());
    }
    return new StreamDeclaration(cols);
  }

  public Map<String, String> columns() {
    return columns;
  }

  /** What is wrong with a row; empty when it fits the declaration. */
  public List<String> problems(JsonNode row) {
    List<String> out = new ArrayList<>();
    if (!row.isObject()) {
      return List.of("a row must be a JSON object: " + row);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = row.fields(); it.hasNext(); ) {
      var f = it.next();
      String type = columns.get(f.getKey());
      if (type == null) {
        out.add("undeclared column " + f.getKey());
      } else if (!fits(type, f.getValue())) {
        out.add(f.getKey() + " is declared " + type + " but is " + f.getValue());
      }
    }
    return out;
  }

  private static boolean fits(String type, JsonNode v) {
    return switch (type) {
      case "string" -> v.isTextual();
      case "int" -> v.isIntegralNumber() && v.canConvertToInt();
      case "long" -> v.isIntegralNumber() && v.canConvertToLong();
      case "real" -> v.isNumber();
      case "boolean" -> v.isBoolean();
      case "dynamic" -> true;
      case "datetime" -> v.isTextual() && isInstant(v.asText());
      default -> false;
    };
  }

  private static boolean isInstant(String s) {
    try {
      Instant.parse(s);
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }
}
