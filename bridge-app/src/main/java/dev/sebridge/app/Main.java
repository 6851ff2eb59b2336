package dev.sebridge.app;

import dev.sebridge.config.ConfigException;
import dev.sebridge.state.StateDirectoryException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sebridge} command. */
@Command(
    name = "sebridge",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description =
        "Azure IMDS Scheduled Events to CloudEvents on Kafka, Event Hubs, files and stdout.",
    subcommands = {
      RunCommand.class,
      SimulateCommand.class,
      DemoCommand.class,
      CheckConfigCommand.class,
      SchemaCommand.class,
      KeygenCommand.class,
      ApproveCommand.class,
      PartitionCommand.class,
      dev.sebridge.app.fleet.FleetCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main {
  /** Bad configuration or usage. */
  public static final int EXIT_CONFIG = 2;

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
    CommandLine cl = new CommandLine(new Main());
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

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"sebridge " + (v == null ? "dev" : v)};
    }
  }
}
