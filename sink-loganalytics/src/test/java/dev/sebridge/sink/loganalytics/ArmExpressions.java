package dev.sebridge.sink.loganalytics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Evaluates an ARM template's expressions ({@code "[...]"} strings) against given parameter values,
 * as Resource Manager does when it validates a deployment, for the functions of the template
 * language that the templates use: {@code parameters}, {@code variables}, {@code if} (only the
 * chosen branch is evaluated), {@code equals}, {@code lessOrEquals}, {@code less}, {@code greater},
 * {@code mul}, {@code length}, {@code format}, {@code createObject}, {@code null}, {@code fail},
 * {@code copyIndex} (of the copy loop being evaluated), {@code resourceId} (the id's type and names
 * joined with '/'), {@code reference} (of a resource given by that id: what the deployed resource
 * shows), property access and indexing. Any other function is an error, so a template written with
 * something this evaluator does not know is noticed rather than passed.
 */
public final class ArmExpressions {
  /** What {@code fail(message)} raises. */
  static final class DeploymentFailed extends RuntimeException {
    DeploymentFailed(String message) {
      super(message);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final JsonNode template;
  private final Map<String, Object> parameters;
  private Map<String, JsonNode> deployed = Map.of();
  private int copyIndex = -1;
  private String text;
  private int pos;

  /** {@code parameters}: values given; the others take their {@code defaultValue}. */
  public ArmExpressions(JsonNode template, Map<String, Object> parameters) {
    this.template = template;
    this.parameters = parameters;
  }

  /**
   * Resources that exist before the deployment, by {@link #resourceId} ({@code
   * Microsoft.EventHub/namespaces/eventhubs/ns/hub}): what {@code reference()} returns for them.
   */
  public ArmExpressions deployed(Map<String, JsonNode> resources) {
    this.deployed = resources;
    return this;
  }

  /** Evaluates as the {@code i}th instance of a copy loop ({@code copyIndex()}). */
  public ArmExpressions at(int i) {
    ArmExpressions a = new ArmExpressions(template, parameters).deployed(deployed);
    a.copyIndex = i;
    return a;
  }

  /** A template value: an expression is evaluated, objects and arrays member by member. */
  public JsonNode value(JsonNode v) {
    if (v.isTextual() && v.asText().startsWith("[") && !v.asText().startsWith("[[")) {
      return evaluate(v.asText());
    }
    if (v.isObject()) {
      ObjectNode out = JSON.createObjectNode();
      v.fields().forEachRemaining(e -> out.set(e.getKey(), value(e.getValue())));
      return out;
    }
    if (v.isArray()) {
      com.fasterxml.jackson.databind.node.ArrayNode out = JSON.createArrayNode();
      v.forEach(e -> out.add(value(e)));
      return out;
    }
    return v;
  }

  public JsonNode evaluate(String expression) {
    ArmExpressions inner = new ArmExpressions(template, parameters).deployed(deployed);
    inner.copyIndex = copyIndex;
    inner.text = expression.substring(1, expression.length() - 1);
    inner.pos = 0;
    JsonNode result = inner.expr();
    inner.skipSpace();
    if (inner.pos != inner.text.length()) {
      throw new IllegalArgumentException("trailing text at " + inner.pos + " in " + expression);
    }
    return result;
  }

  private JsonNode expr() {
    skipSpace();
    JsonNode v;
    if (peek() == '\'') {
      v = TextNode.valueOf(string());
    } else if (Character.isDigit(peek()) || peek() == '-') {
      int start = pos++;
      while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
        pos++;
      }
      v = IntNode.valueOf(Integer.parseInt(text.substring(start, pos)));
    } else {
      v = call();
    }
    while (pos < text.length() && (peek() == '.' || peek() == '[')) {
      if (peek() == '.') {
        pos++;
        v = member(v, identifier());
      } else {
        pos++;
        JsonNode key = expr();
        expect(']');
        v = key.isInt() ? v.get(key.asInt()) : member(v, key.asText());
      }
    }
    return v;
  }

  private static JsonNode member(JsonNode v, String name) {
    JsonNode m = v.get(name);
    if (m == null) {
      throw new IllegalArgumentException("no member " + name + " in " + v);
    }
    return m;
  }

  private JsonNode call() {
    String name = identifier();
    expect('(');
    if (name.equals("if")) {
      boolean condition = expr().asBoolean();
      expect(',');
      int thenStart = pos;
      skipArgument();
      expect(',');
      int elseStart = pos;
      skipArgument();
      int end = pos;
      pos = condition ? thenStart : elseStart;
      JsonNode chosen = expr();
      pos = end;
      expect(')');
      return chosen;
    }
    List<JsonNode> args = new ArrayList<>();
    skipSpace();
    while (peek() != ')') {
      args.add(expr());
      skipSpace();
      if (peek() == ',') {
        pos++;
      }
      skipSpace();
    }
    pos++;
    return apply(name, args);
  }

  private JsonNode apply(String name, List<JsonNode> a) {
    switch (name) {
      case "parameters":
        String p = a.get(0).asText();
        if (parameters.containsKey(p)) {
          return JSON.valueToTree(parameters.get(p));
        }
        return value(member(member(template.get("parameters"), p), "defaultValue"));
      case "variables":
        return value(member(template.get("variables"), a.get(0).asText()));
      case "equals":
        return JSON.getNodeFactory().booleanNode(a.get(0).equals(a.get(1)));
      case "length":
        return IntNode.valueOf(a.get(0).size());
      case "createObject":
        ObjectNode o = JSON.createObjectNode();
        for (int i = 0; i + 1 < a.size(); i += 2) {
          o.set(a.get(i).asText(), a.get(i + 1));
        }
        return o;
      case "null":
        return JSON.getNodeFactory().nullNode();
      case "copyIndex":
        if (copyIndex < 0) {
          throw new IllegalArgumentException("copyIndex() outside a copy loop");
        }
        return IntNode.valueOf(copyIndex);
      case "resourceId":
        return TextNode.valueOf(String.join("/", a.stream().map(JsonNode::asText).toList()));
      case "reference":
        JsonNode r = deployed.get(a.get(0).asText());
        if (r == null) {
          throw new IllegalArgumentException("reference() of a resource not given: " + a.get(0));
        }
        return r;
      case "lessOrEquals":
        return JSON.getNodeFactory().booleanNode(a.get(0).asLong() <= a.get(1).asLong());
      case "less":
        return JSON.getNodeFactory().booleanNode(a.get(0).asLong() < a.get(1).asLong());
      case "greater":
        return JSON.getNodeFactory().booleanNode(a.get(0).asLong() > a.get(1).asLong());
      case "mul":
        return IntNode.valueOf(a.get(0).asInt() * a.get(1).asInt());
      case "format":
        String out = a.get(0).asText();
        for (int i = 1; i < a.size(); i++) {
          out = out.replace("{" + (i - 1) + "}", a.get(i).asText());
        }
        return TextNode.valueOf(out);
      case "fail":
        throw new DeploymentFailed(a.get(0).asText());
      default:
        throw new IllegalArgumentException("function not supported by this evaluator: " + name);
    }
  }

  /** Moves past one argument without evaluating it (the branch {@code if} does not take). */
  private void skipArgument() {
    int depth = 0;
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c == '\'') {
        string();
        continue;
      }
      if (c == '(' || c == '[') {
        depth++;
      } else if (c == ')' || c == ']') {
        if (depth == 0) {
          return;
        }
        depth--;
      } else if (c == ',' && depth == 0) {
        return;
      }
      pos++;
    }
  }

  private String string() {
    expect('\'');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = text.charAt(pos++);
      if (c == '\'') {
        if (pos < text.length() && text.charAt(pos) == '\'') {
          b.append('\'');
          pos++;
        } else {
          return b.toString();
        }
      } else {
        b.append(c);
      }
    }
  }

  private String identifier() {
    skipSpace();
    int start = pos;
    while (pos < text.length() && Character.isLetterOrDigit(text.charAt(pos))) {
      pos++;
    }
    if (start == pos) {
      throw new IllegalArgumentException("identifier expected at " + pos + " in " + text);
    }
    return text.substring(start, pos);
  }

  private void expect(char c) {
    skipSpace();
    if (peek() != c) {
      throw new IllegalArgumentException("'" + c + "' expected at " + pos + " in " + text);
    }
    pos++;
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private void skipSpace() {
    while (pos < text.length() && text.charAt(pos) == ' ') {
      pos++;
    }
  }
}
