package dev.sebridge.schemas;

import java.util.Arrays;
import java.util.Optional;

/** The documents sebridge publishes or consumes, each with its JSON Schema. */
public enum SchemaKind {
  /** A scheduled-event transition envelope. */
  ENVELOPE("envelope", "scheduledevent", "dev.sebridge.scheduledevent."),
  /** An approval result envelope. */
  RESULT("result", "approvalresult", "dev.sebridge.approval.result."),
  /** An agent heartbeat envelope. */
  HEARTBEAT("heartbeat", "heartbeat", "dev.sebridge.agent.heartbeat."),
  /** An approval command. */
  COMMAND("command", "command:approve", "dev.sebridge.command.approve.");

  private final String cliName;
  private final String urnName;
  private final String typePrefix;

  SchemaKind(String cliName, String urnName, String typePrefix) {
    this.cliName = cliName;
    this.urnName = urnName;
    this.typePrefix = typePrefix;
  }

  /** As named on the command line: {@code sebridge schema envelope}. */
  public String cliName() {
    return cliName;
  }

  /**
   * The {@code $id} and {@code dataschema} of a version, e.g. {@code
   * urn:sebridge:schema:scheduledevent:1.0}.
   */
  public String urn(String version) {
    return "urn:sebridge:schema:" + urnName + ":" + version;
  }

  /** Resource path of a version's schema. */
  String resource(String version) {
    return "/schemas/v1/" + urnName.replace(':', '-') + "-" + version + ".json";
  }

  /** The kind of a CloudEvents {@code type}, if it is one of ours. */
  public static Optional<SchemaKind> ofType(String ceType) {
    return Arrays.stream(values())
        .filter(k -> ceType != null && ceType.startsWith(k.typePrefix))
        .findFirst();
  }

  /** The v1 type of this kind exactly ({@code dev.sebridge.agent.heartbeat.v1}), if it is that. */
  public static Optional<SchemaKind> ofV1Type(String ceType) {
    return ofType(ceType).filter(k -> ceType.equals(k.typePrefix + "v1"));
  }

  public static Optional<SchemaKind> ofCliName(String name) {
    return Arrays.stream(values()).filter(k -> k.cliName.equals(name)).findFirst();
  }
}
