package io.zkfence.server.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The archive {@code ./mvnw verify} just built, unpacked as an operator would: with the system's
 * {@code tar}, into an empty folder, so file modes are what the archive says.
 */
final class UnpackedDistribution {

    private final Path home;

    private UnpackedDistribution(Path home) {
        this.home = home;
    }

    /** The built tar.gz (failsafe passes its path as {@code zkfence.dist.tar}). */
    static Path tarball() {
        return Path.of(required("zkfence.dist.tar"));
    }

    /** The built zip ({@code zkfence.dist.zip}). */
    static Path zip() {
        return Path.of(required("zkfence.dist.zip"));
    }

    /** The archives' top directory, {@code zkfence-server-VERSION} ({@code zkfence.dist.name}). */
    static String topDirectory() {
        return required("zkfence.dist.name");
    }

    /**
     * Unpacks the tar.gz into {@code emptyFolder}.
     *
     * @throws AssertionError if the folder is not empty, tar fails, or the archive has no top directory
     */
    static UnpackedDistribution unpack(Path emptyFolder) {
        try (var entries = Files.list(emptyFolder)) {
            if (entries.findAny().isPresent()) {
                throw new AssertionError("not an empty folder: " + emptyFolder);
            }
            Process tar = new ProcessBuilder("tar", "-xzf", tarball().toString(), "-C", emptyFolder.toString())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!tar.waitFor(60, TimeUnit.SECONDS) || tar.exitValue() != 0) {
                throw new AssertionError("tar -xzf " + tarball() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack " + tarball(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while unpacking", e);
        }
        Path home = emptyFolder.resolve(topDirectory());
        if (!Files.isDirectory(home)) {
            throw new AssertionError("the archive has no top directory " + topDirectory() + " in " + emptyFolder);
        }
        try {
            return new UnpackedDistribution(home.toRealPath()); // as the script finds itself: cd -P
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path home() {
        return home;
    }

    Path script() {
        return home.resolve("bin/zkfence-server");
    }

    Path resolve(String relative) {
        return home.resolve(relative);
    }

    /** Every regular file under the distribution's top directory, relative to it, sorted. */
    List<String> files() {
        try (var walk = Files.walk(home)) {
            return walk.filter(Files::isRegularFile)
                    .map(p -> home.relativize(p).toString())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(
                    "system property " + property + " is not set: run this test through ./mvnw verify (failsafe)");
        }
        return value;
    }
}
