package dev.sebridge.app.fleet;

import picocli.CommandLine.Command;

/** {@code sebridge fleet}: the fleet service and its client commands. */
@Command(
    name = "fleet",
    mixinStandardHelpOptions = true,
    description =
        "The fleet service (serve) and its clients: open maintenance across every VM, silent"
            + " agents, approvals, rollouts in waves.",
    subcommands = {
      FleetServeCommand.class,
      FleetEventsCommand.class,
      FleetVmsCommand.class,
      FleetCampaignsCommand.class,
      FleetApproveCommand.class,
      FleetApprovalsCommand.class,
      FleetRolloutCommand.class,
      FleetRolloutsCommand.class
    })
public final class FleetCommand {}
