package io.zkfence.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One run of a command's main class in a JVM of its own, on this test's class path, with its
 * standard output and standard error kept apart: how a command's logging is checked as a user
 * sees it (a test JVM's own logging configuration does not reach it: the commands choose theirs).
 *
 * @param exitCode the JVM's exit code
 * @param out the lines on standard output
 * @param err the lines on standard error
 */
public record CommandRun(int exitCode, List<String> out, List<String> err) {

    /**
     * Runs {@code mainClass} with {@code args} and waits up to {@code within} for it to end.
     *
     * @param jvmOptions options for the JVM (system properties, module flags), before the class
     * @throws IllegalStateException if it does not end in time (it is killed)
     */
    public static CommandRun of(Class<?> mainClass, List<String> jvmOptions, Duration within, String... args) {
        return run(false, mainClass, jvmOptions, within, args);
    }

    /**
     * As {@link #of}, with standard error merged into standard output ({@link #out()}, in the order
     * a terminal shows them; {@link #err()} is empty): for what is printed last.
     */
    public static CommandRun merged(Class<?> mainClass, List<String> jvmOptions, Duration within, String... args) {
        return run(true, mainClass, jvmOptions, within, args);
    }

    private static CommandRun run(
            boolean merged, Class<?> mainClass, List<String> jvmOptions, Duration within, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(args));
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(merged).start();
            process.getOutputStream().close();
            CompletableFuture<List<String>> err = CompletableFuture.supplyAsync(() -> lines(process.getErrorStream()));
            CompletableFuture<List<String>> out = CompletableFuture.supplyAsync(() -> lines(process.getInputStream()));
            if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(mainClass.getSimpleName() + " did not end within " + within);
            }
            return new CommandRun(process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + mainClass.getSimpleName() + " ran", e);
        }
    }

    /** The lines on standard error that are log lines at {@code level} (DEBUG, INFO, WARN, ERROR). */
    public List<String> errAt(String level) {
        return logLines(err, level);
    }

    /** The lines on standard output that are log lines at {@code level} (DEBUG, INFO, WARN, ERROR). */
    public List<String> outAt(String level) {
        return logLines(out, level);
    }

    private static List<String> logLines(List<String> lines, String level) {
        return lines.stream().filter(l -> l.contains(" " + level + " ")).toList();
    }

    /** Everything it printed, standard output first, for an assertion's description. */
    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout\n" + String.join("\n", out) + "\n--- stderr\n"
                + String.join("\n", err);
    }

    private static List<String> lines(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
