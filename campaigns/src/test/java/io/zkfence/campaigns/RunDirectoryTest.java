package io.zkfence.campaigns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunDirectoryTest {

    private static final Clock AT = Clock.fixed(Instant.parse("2026-11-28T06:14:27Z"), ZoneOffset.UTC);

    @TempDir
    Path parent;

    @Test
    void anEarlierRunsFilesAreMovedAsideWholeAndTheRunStartsEmpty() throws IOException {
        Path out = parent.resolve("faults-service");
        Files.createDirectories(out);
        Files.writeString(out.resolve("w0.jsonl"), "{\"worker\":\"w0\"}\n");
        Files.writeString(out.resolve("report.md"), "# earlier report\n");

        Path aside = RunDirectory.startFresh(out, AT);

        assertThat(aside).isEqualTo(parent.resolve("faults-service.20261128T061427Z"));
        assertThat(Files.readString(aside.resolve("w0.jsonl"))).isEqualTo("{\"worker\":\"w0\"}\n");
        assertThat(Files.readString(aside.resolve("report.md"))).isEqualTo("# earlier report\n");
        assertThat(out).isEmptyDirectory();
    }

    @Test
    void twoEarlierRunsMovedInTheSameSecondKeepBoth() throws IOException {
        Path out = parent.resolve("faults");
        Files.createDirectories(out);
        Files.writeString(out.resolve("w0.jsonl"), "first\n");
        Path first = RunDirectory.startFresh(out, AT);
        Files.writeString(out.resolve("w0.jsonl"), "second\n");

        Path second = RunDirectory.startFresh(out, AT);

        assertThat(second).isEqualTo(parent.resolve("faults.20261128T061427Z-2"));
        assertThat(Files.readString(first.resolve("w0.jsonl"))).isEqualTo("first\n");
        assertThat(Files.readString(second.resolve("w0.jsonl"))).isEqualTo("second\n");
    }

    @Test
    void aMissingDirectoryIsCreatedAndAnEmptyOneLeftWhereItIs() throws IOException {
        Path missing = parent.resolve("new/faults");
        assertThat(RunDirectory.startFresh(missing, AT)).isNull();
        assertThat(missing).isEmptyDirectory();

        assertThat(RunDirectory.startFresh(missing, AT)).isNull();
        try (Stream<Path> siblings = Files.list(missing.getParent())) {
            assertThat(siblings).containsExactly(missing);
        }
    }

    @Test
    void aFileWhereTheDirectoryShouldBeIsRefusedAndLeftAlone() throws IOException {
        Path file = parent.resolve("faults");
        Files.writeString(file, "not a directory");

        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> RunDirectory.startFresh(file, AT));

        assertThat(e).hasMessageContaining("is a file, not a directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory");
    }
}
