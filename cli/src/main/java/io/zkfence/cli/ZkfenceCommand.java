package io.zkfence.cli;

import io.zkfence.command.CommandLogging;
import io.zkfence.lock.LockException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./zkfence}: the operator's command line. */
@Command(
        name = "zkfence",
        mixinStandardHelpOptions = true,
        description = "Operate zkfence locks: list, inspect, watch and force-release them; read the audit log.",
        subcommands = {LocksCommand.class, AuditCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done",
            "1:ZooKeeper unreachable or refused the operation",
            "2:bad arguments",
            "3:force-release not confirmed",
            "4:the lock is not held"
        })
public final class ZkfenceCommand implements Runnable {

    final BufferedReader in;

    @CommandLine.Mixin
    Connection connection;

    ZkfenceCommand(BufferedReader in) {
        this.in = in;
    }

    /** Runs the command line and exits the JVM with its exit code. */
    public static void main(String[] args) {
        System.exit(CommandLogging.execute(
                () -> commandLine(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))), args));
    }

    /** The command line, wired with its error handling; {@code in} answers confirmation prompts. */
    static CommandLine commandLine(BufferedReader in) {
        CommandLine cl = new CommandLine(new ZkfenceCommand(in));
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof CliException ce) {
                commandLine.getErr().println("zkfence: " + ce.getMessage());
                return ce.exitCode();
            }
            if (e instanceof IllegalArgumentException iae) {
                commandLine.getErr().println("zkfence: " + iae.getMessage());
                return ExitCodes.USAGE;
            }
            if (e instanceof LockException le) {
                commandLine.getErr().println("zkfence: " + le.getMessage());
                return ExitCodes.UNAVAILABLE;
            }
            throw e;
        });
        return cl;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(new CommandLine(this), "give a command: locks or audit (see --help)");
    }
}
