package io.zkfence.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's "Repository layout" table names every entry at the top of the repository, so a
 * newcomer can place each one at a glance: a new module, script or folder fails this until it has
 * its line.
 */
class ReadmeLayoutTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    /** Not part of the repository: git's own entry, and what .gitignore leaves out at the top. */
    private static final Set<String> NOT_TRACKED =
            Set.of(".git", "target", ".idea", ".vscode", "__pycache__", ".flattened-pom.xml");

    @Test
    void everyTopLevelEntryHasALineInTheRepositoryLayoutTable() throws IOException {
        String readme = Files.readString(REPO.resolve("README.md"));
        int start = readme.indexOf("\n## Repository layout\n");
        assertThat(start).as("README.md has a \"Repository layout\" section").isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        String layout = readme.substring(start, end < 0 ? readme.length() : end);

        List<String> missing;
        try (Stream<Path> entries = Files.list(REPO)) {
            missing = entries.map(p -> Files.isDirectory(p) ? p.getFileName() + "/" : p.getFileName() + "")
                    .filter(name -> !NOT_TRACKED.contains(name.replace("/", "")))
                    .filter(name -> !name.endsWith(".iml") && !name.endsWith(".log"))
                    .filter(name -> !layout.contains("`" + name + "`"))
                    .sorted()
                    .toList();
        }
        assertThat(missing)
                .as("top-level entries without a line in README.md's layout table")
                .isEmpty();
    }
}
