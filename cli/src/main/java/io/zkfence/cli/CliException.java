package io.zkfence.cli;

/** A command failed: its message is printed to stderr, and the tool exits with {@link #exitCode()}. */
final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
