package dev.sebridge.app;

import dev.sebridge.command.CommandPartitioning;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge partition --vm VMID --partitions N}: the partition of the commands topic (or hub)
 * a VM's agent reads, and the key to send with. A sender in any language checks its routing with it
 * (docs/approvals.md, "Routing").
 */
@Command(
    name = "partition",
    mixinStandardHelpOptions = true,
    description =
        "Prints the partition of the commands topic a VM's agent reads (murmur2 of the lower-case"
            + " vmId, as docs/approvals.md defines) and the record key to use.")
final class PartitionCommand implements Callable<Integer> {
  @Option(names = "--vm", required = true, paramLabel = "VMID", description = "The VM's vmId.")
  String vmId;

  @Option(
      names = "--partitions",
      required = true,
      paramLabel = "N",
      description = "Partitions of the commands topic or hub.")
  int partitions;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (partitions < 1) {
      spec.commandLine().getErr().println("sebridge partition: --partitions must be at least 1");
      return Main.EXIT_CONFIG;
    }
    spec.commandLine()
        .getOut()
        .printf(
            "partition %d of %d; key %s%n",
            CommandPartitioning.partitionFor(vmId, partitions),
            partitions,
            CommandPartitioning.canonical(vmId));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
