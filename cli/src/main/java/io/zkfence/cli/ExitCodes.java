package io.zkfence.cli;

/** The tool's exit codes; {@code zkfence --help} lists them. */
final class ExitCodes {

    static final int OK = 0;
    /** ZooKeeper could not be reached, or refused the operation. */
    static final int UNAVAILABLE = 1;
    /** Bad arguments. */
    static final int USAGE = 2;
    /** A force-release was not confirmed. */
    static final int NOT_CONFIRMED = 3;
    /** The lock is not held (inspect, force-release found nothing to do). */
    static final int NOT_HELD = 4;

    private ExitCodes() {}
}
