package io.zkfence.command;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.function.Supplier;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;

/**
 * The one logging setup of the commands zkfence ships: a command prints its own output on
 * standard output; the libraries' warnings and errors go to standard error; nothing is logged at
 * DEBUG unless the command line says {@code --verbose}.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     System.exit(CommandLogging.execute(() -> new CommandLine(new MyCommand()), args));
 * }
 * }</pre>
 *
 * <p>Without a configuration of its own, logback logs everything at DEBUG to standard output:
 * {@code ./zkfence locks list} printed about 70 lines of ZooKeeper and Curator around its answer.
 * A JVM given its own configuration ({@code -Dlogback.configurationFile=...}) keeps it.
 */
public final class CommandLogging {

    /** The commands' logging configuration, a class path resource. */
    public static final String CONFIGURATION = "io/zkfence/command/logback-command.xml";

    /** The flag that logs everything, the libraries' DEBUG included, to standard error. */
    public static final String VERBOSE = "--verbose";

    private CommandLogging() {}

    /**
     * Runs a command as every zkfence command runs: {@link #configure()} first, then the command
     * line {@code commandLine} makes (after that, so that no logger exists before), with
     * {@link #withVerbose the --verbose flag}.
     *
     * @return the command's exit code
     */
    public static int execute(Supplier<CommandLine> commandLine, String... args) {
        configure();
        return withVerbose(commandLine.get()).execute(args);
    }

    /**
     * Chooses the commands' configuration unless the JVM was given one. Call it before the first
     * logger is made: logback reads its configuration then. Libraries that log through
     * {@code java.util.logging} (Tomcat and Spring in the embedded S3Mock wrote their shutdown lines
     * after the demo's result) are routed into it, and a Spring Boot application the command runs
     * in its process is kept from replacing it with its own.
     */
    public static void configure() {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", CONFIGURATION);
        }
        if (System.getProperty("org.springframework.boot.logging.LoggingSystem") == null) {
            System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        }
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
        // Now, on this thread: a command's first loggers are made by several threads at once (the
        // embedded servers start in parallel), and SLF4J then reports on standard error that it
        // replayed their calls.
        LoggerFactory.getILoggerFactory();
    }

    /**
     * Adds {@code --verbose} to {@code commandLine} and its subcommands; given, it logs everything
     * at DEBUG from the moment the command line is parsed.
     *
     * @return {@code commandLine}
     */
    public static CommandLine withVerbose(CommandLine commandLine) {
        commandLine
                .getCommandSpec()
                .addOption(OptionSpec.builder(VERBOSE)
                        .description(
                                "Log what the libraries do (ZooKeeper, Curator, ...), at DEBUG, to standard error.")
                        .scopeType(ScopeType.INHERIT)
                        .build());
        CommandLine.IExecutionStrategy run = commandLine.getExecutionStrategy();
        commandLine.setExecutionStrategy(parsed -> {
            if (verbose(parsed)) {
                logEverything();
            }
            return run.execute(parsed);
        });
        return commandLine;
    }

    private static boolean verbose(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption(VERBOSE)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Every logger at DEBUG: the root, and each logger the configuration gave a level of its own
     * (set to DEBUG rather than cleared: the configuration hands each level on to
     * {@code java.util.logging}, which takes no "inherit").
     */
    private static void logEverything() {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            return; // another backend than the commands' own: its configuration decides
        }
        for (Logger logger : context.getLoggerList()) {
            if (logger.getLevel() != null) {
                logger.setLevel(Level.DEBUG);
            }
        }
    }
}
