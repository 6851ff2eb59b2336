package dev.sebridge.app;

import dev.sebridge.config.ConfigException;
import dev.sebridge.state.StateDirectoryException;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sebridge} command. */
@Command(
    name = "sebridge",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description =
        "Azure IMDS Scheduled Events to CloudEvents on Kafka, Event Hubs, files and stdout.")
public final class Main {
  /** Bad configuration or usage. */
  public static final int EXIT_CONFIG = 2;

  /**
   * The subcommands, in the order {@code --help} lists them. Not in {@code @Command(subcommands)}:
   * picocli would build the model of every one of them (and load the classes their options name)
   * before running any, which costs the agent ({@code run}) about 1 MiB of heap and 0.8 MiB of
   * class metadata for commands it never runs (benchmarks/FOOTPRINT.md).
   */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          RunCommand.class,
          SimulateCommand.class,
          DemoCommand.class,
          CheckConfigCommand.class,
          SchemaCommand.class,
          KeygenCommand.class,
          ApproveCommand.class,
          PartitionCommand.class,
          dev.sebridge.app.fleet.FleetCommand.class,
          CommandLine.HelpCommand.class);

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs a command line and returns the exit code (no System.exit: tests call this). */
  public static int execute(String... args) {
    return execute(null, null, args);
  }

  /** Runs a command line with its output and error streams redirected (null: the console). */
  public static int execute(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
    // Before any HTTP request: the JDK must not retry a POST StartRequests by itself (ImdsClient).
    if (System.getProperty(dev.sebridge.imds.ImdsClient.NO_POST_RETRY) == null) {
      System.setProperty(dev.sebridge.imds.ImdsClient.NO_POST_RETRY, "false");
    }
    CommandLine cl = commandLine(args);
    if (out != null) {
      cl.setOut(out);
    }
    if (err != null) {
      cl.setErr(err);
    }
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof ConfigException ce) {
            commandLine.getErr().println("sebridge: " + ce.getMessage());
            return EXIT_CONFIG;
          }
          if (ex instanceof StateDirectoryException se) {
            commandLine.getErr().println("sebridge: " + se.getMessage() + " (state.dir)");
            return EXIT_CONFIG;
          }
          throw ex;
        });
    return cl.execute(args);
  }

  /**
   * The command line for {@code args}: when the first argument names a subcommand, only that one is
   * registered (its own options, help and errors are the same); otherwise, for {@code --help},
   * {@code --version}, {@code help} and usage errors, all of them.
   */
  static CommandLine commandLine(String... args) {
    CommandLine cl = new CommandLine(new Main());
    String first = args.length == 0 ? "" : args[0];
    List<Class<?>> named =
        SUBCOMMANDS.stream()
            .filter(c -> !c.equals(CommandLine.HelpCommand.class))
            .filter(c -> c.getAnnotation(Command.class).name().equals(first))
            .toList();
    (named.isEmpty() ? SUBCOMMANDS : named).forEach(cl::addSubcommand);
    return cl;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"sebridge " + (v == null ? "dev" : v)};
    }
  }
}
