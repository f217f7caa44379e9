package io.zkfence.campaigns.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The two Debian packages the lock service's campaign needs, installed when missing (as root, with
 * apt-get, as docs/faults.md says): {@code faketime} (libfaketime: a replica's clock skewed by a few
 * seconds, set per process through {@code LD_PRELOAD}) and {@code python3-psycopg2} (the Python
 * worker's PostgreSQL driver, for Debian's {@code /usr/bin/python3}; pyenv's python3 on the PATH
 * does not see Debian's packages).
 */
final class HostTools {

    /** Debian's Python, which sees Debian's python3-psycopg2. */
    static final Path PYTHON = Path.of("/usr/bin/python3");

    private static final List<Path> LIBFAKETIME = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/faketime/libfaketime.so.1"));

    private HostTools() {}

    /**
     * Installs what is missing, then returns libfaketime's path.
     *
     * @throws IllegalStateException naming the package and the command to run, if it cannot be installed
     */
    static Path ensure() {
        if (libfaketime() == null || !psycopg2()) {
            install();
        }
        Path lib = libfaketime();
        if (lib == null) {
            throw new IllegalStateException("libfaketime is missing (looked in " + LIBFAKETIME
                    + "): install Debian's faketime package (apt-get install -y faketime)");
        }
        if (!psycopg2()) {
            throw new IllegalStateException("the Python worker needs psycopg2 for " + PYTHON
                    + ": install Debian's python3-psycopg2 (apt-get install -y python3-psycopg2)");
        }
        return lib;
    }

    private static Path libfaketime() {
        return LIBFAKETIME.stream().filter(Files::isReadable).findFirst().orElse(null);
    }

    private static boolean psycopg2() {
        return Files.isExecutable(PYTHON) && run(List.of(PYTHON.toString(), "-c", "import psycopg2")) == 0;
    }

    private static void install() {
        List<String> install = List.of("apt-get", "install", "-y", "-q", "faketime", "python3-psycopg2");
        if (run(install) != 0) {
            // The package lists may be missing or stale: fetch them once, then try again.
            run(List.of("apt-get", "update", "-q"));
            if (run(install) != 0) {
                throw new IllegalStateException("could not install faketime and python3-psycopg2 with apt-get (it"
                        + " needs root): install them, then run the campaign again");
            }
        }
    }

    /** Runs a command to its end, its output discarded: the exit code, or -1 if it cannot run at all. */
    private static int run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }
}
