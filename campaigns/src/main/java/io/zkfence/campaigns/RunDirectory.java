package io.zkfence.campaigns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.stream.Stream;

/**
 * A campaign's output directory, empty when the campaign starts. Workers, replicas and the fault
 * log append to their files for the whole run (a restarted worker goes on with its log), so a run
 * started in the directory of an earlier one would read that run's lines as its own: attempts
 * accepted that its database never saw, holds that overlap its own. The earlier run's files are
 * kept, in a directory beside it, not deleted: its report may be the one a user came back for.
 */
public final class RunDirectory {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private RunDirectory() {}

    /**
     * Makes {@code dir} an empty directory: creates it if absent; if it holds anything, moves it
     * aside first, to {@code <dir>.<UTC time>} (with {@code -2}, {@code -3} … if that is taken).
     *
     * @return where the earlier run's files went, or null if there were none
     * @throws UncheckedIOException if the directory cannot be created or moved, or is a file
     */
    public static Path startFresh(Path dir, Clock clock) {
        try {
            if (Files.isDirectory(dir) && isEmpty(dir)) {
                return null;
            }
            Path aside = null;
            if (Files.exists(dir)) {
                if (!Files.isDirectory(dir)) {
                    throw new UncheckedIOException(new IOException(
                            "the campaign's output " + dir.toAbsolutePath() + " is a file, not a directory"));
                }
                String base = dir.toAbsolutePath().getFileName() + "."
                        + STAMP.format(clock.instant().atZone(ZoneOffset.UTC));
                aside = dir.resolveSibling(base);
                for (int n = 2; Files.exists(aside); n++) {
                    aside = dir.resolveSibling(base + "-" + n);
                }
                Files.move(dir, aside);
            }
            Files.createDirectories(dir);
            return aside;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot prepare the campaign's output " + dir.toAbsolutePath() + ": " + e, e);
        }
    }

    /** Prints, on the command's standard output, where an earlier run's files went (nothing if null). */
    public static void announceMoved(Path dir, Path aside) {
        if (aside != null) {
            System.out.println("faults: " + dir + " held an earlier run's files; moved to " + aside);
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> in = Files.list(dir)) {
            return in.findAny().isEmpty();
        }
    }
}
