package dev.sebridge.imds;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The Instance Metadata Service as the agent uses it. {@link ImdsClient} speaks HTTP to the real
 * one (or the simulator); tests use an in-memory fake. No call throws for an IMDS problem: every
 * answer is an {@link ImdsResult}, and only {@link ImdsResult.Ok} carries a value.
 */
public interface Imds {

  /** Where the scheduled events document is read (for logs). */
  URI scheduledEventsUri();

  /** Reads the scheduled events document. */
  ImdsResult<ScheduledEventsDocument> scheduledEvents(Duration timeout);

  /** Reads this VM's identity from {@code /metadata/instance/compute}. */
  ImdsResult<VmIdentity> identity(Duration timeout);

  /** One {@code POST} with a StartRequest per EventId; the value of a success is the status. */
  ImdsResult<Integer> startEvents(List<String> eventIds, Duration timeout);
}
