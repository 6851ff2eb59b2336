package dev.sebridge.fleet.agentless;

/**
 * What one record of Azure's central delivery held: a scheduled event of a VM, something else the
 * topic carries (ignored, with why), or something that should be an event and cannot be read
 * (malformed, with why: counted and logged, never taken for "no event").
 */
public sealed interface Delivery {
  /** A scheduled event of one or more VMs. */
  record Event(AzureScheduledEvent event) implements Delivery {}

  /** Another kind of notification the topic may carry (another resource type, another event). */
  record Ignored(String deliveryId, String reason) implements Delivery {}

  /** Not readable as what it claims to be. */
  record Malformed(String deliveryId, String reason) implements Delivery {}
}
