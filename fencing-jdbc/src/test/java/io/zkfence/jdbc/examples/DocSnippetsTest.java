package io.zkfence.jdbc.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every tagged region of the example sources appears verbatim in docs/fencing-jdbc.md (and the
 * quick start in the module's README), so the documented code is code that compiles and is tested by {@link ExamplesTest}.
 */
class DocSnippetsTest {

    private static final Path EXAMPLES = Path.of("src/test/java/io/zkfence/jdbc/examples");
    private static final Path GUIDE = Path.of("../docs/fencing-jdbc.md");
    private static final Path README = Path.of("README.md");
    private static final Pattern REGION = Pattern.compile(
            "^[ \\t]*// tag::([a-z-]+)\\[]\\R(.*?)^[ \\t]*// end::\\1\\[]", Pattern.MULTILINE | Pattern.DOTALL);

    @Test
    void everyTaggedExampleIsQuotedVerbatimInTheGuide() throws IOException {
        String guide = Files.readString(GUIDE);
        List<String> tags = new ArrayList<>();
        try (var files = Files.list(EXAMPLES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                Matcher m = REGION.matcher(Files.readString(file));
                while (m.find()) {
                    tags.add(m.group(1));
                    assertThat(guide).as("docs/fencing-jdbc.md quotes region '%s' of %s", m.group(1), file.getFileName())
                            .contains(dedent(m.group(2)));
                }
            }
        }
        assertThat(tags).contains("quick-start", "jdbc-dao", "jooq-dao", "token-column", "claim", "retry");
    }

    @Test
    void readmeQuotesTheQuickStartVerbatim() throws IOException {
        Matcher m = REGION.matcher(Files.readString(EXAMPLES.resolve("QuickStart.java")));
        assertThat(m.find()).isTrue();

        assertThat(Files.readString(README)).contains(dedent(m.group(2)));
    }

    private static String dedent(String block) {
        List<String> lines = block.lines().toList();
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return out.toString();
    }
}
