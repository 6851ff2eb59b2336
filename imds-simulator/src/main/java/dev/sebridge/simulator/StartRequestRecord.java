package dev.sebridge.simulator;

import java.time.Instant;
import java.util.List;

/**
 * One {@code POST /metadata/scheduledevents} the simulator received.
 *
 * @param at when it arrived (simulator clock)
 * @param vm the VM name whose IMDS was called
 * @param eventIds the EventIds in StartRequests, as sent
 * @param status the HTTP status answered
 */
public record StartRequestRecord(Instant at, String vm, List<String> eventIds, int status) {}
