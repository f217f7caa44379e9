package io.zkfence.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The code in the docs is compiled, tested code. In README.md, docs/ and every module's
 * README.md, each {@code ```java} block must be marked {@code <!-- snippet: path -->} or
 * {@code <!-- snippet: path#region -->} and be, character for character, the named file or the
 * region of it between {@code // snippet:region} and {@code // end:region} (indentation removed);
 * or be marked {@code <!-- not-compiled: reason -->}, saying why it cannot be (e.g. it needs a
 * framework zkfence does not depend on).
 */
class DocSnippetsTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern SNIPPET =
            Pattern.compile("<!-- snippet: ([^#\\s]+)(?:#(\\S+))? -->\\s*```\\w*\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern JAVA_BLOCK = Pattern.compile("^```java$", Pattern.MULTILINE);
    private static final Pattern NOT_COMPILED = Pattern.compile("<!-- not-compiled: \\S.* -->");

    @Test
    void everyMarkedSnippetInTheDocsMatchesItsSourceFile() throws IOException {
        int checked = 0;
        for (Path doc : docs()) {
            Matcher m = SNIPPET.matcher(Files.readString(doc));
            while (m.find()) {
                Path source = REPO.resolve(m.group(1));
                assertThat(source).as("snippet source named in %s", doc).exists();
                String expected = m.group(2) == null ? Files.readString(source) : region(source, m.group(2));
                assertThat(m.group(3))
                        .as(
                                "snippet %s in %s",
                                m.group(1) + (m.group(2) == null ? "" : "#" + m.group(2)), REPO.relativize(doc))
                        .isEqualTo(expected);
                checked++;
            }
        }
        assertThat(checked).as("snippets found").isGreaterThan(20);
    }

    @Test
    void everyJavaBlockInTheDocsIsASnippetOrSaysWhyNot() throws IOException {
        List<String> unmarked = new ArrayList<>();
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            Matcher m = JAVA_BLOCK.matcher(text);
            while (m.find()) {
                String before = text.substring(0, m.start()).stripTrailing();
                String marker = before.substring(before.lastIndexOf('\n') + 1);
                if (!marker.startsWith("<!-- snippet: ")
                        && !NOT_COMPILED.matcher(marker).matches()) {
                    unmarked.add(REPO.relativize(doc) + ":"
                            + (text.substring(0, m.start()).lines().count() + 1));
                }
            }
        }
        assertThat(unmarked)
                .as("java blocks with neither a snippet nor a not-compiled marker")
                .isEmpty();
    }

    private static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(REPO.resolve("README.md")));
        try (Stream<Path> files = Files.walk(REPO.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        try (Stream<Path> modules = Files.list(REPO)) {
            modules.map(m -> m.resolve("README.md"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .forEach(docs::add);
        }
        return docs;
    }

    static String region(Path source, String name) throws IOException {
        List<String> lines = Files.readAllLines(source);
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            String t = lines.get(i).strip();
            if (t.equals("// snippet:" + name)) {
                start = i + 1;
            } else if (t.equals("// end:" + name)) {
                end = i;
            }
        }
        assertThat(start).as("region %s in %s", name, source).isPositive();
        assertThat(end).as("end of region %s in %s", name, source).isGreaterThan(start);
        List<String> body = lines.subList(start, end);
        int indent = body.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        StringBuilder sb = new StringBuilder();
        for (String l : body) {
            sb.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
        }
        return sb.toString();
    }
}
