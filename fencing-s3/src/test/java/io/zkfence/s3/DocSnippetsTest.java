package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Java blocks in docs/fencing-s3.md must be verbatim regions of the example that compiles and runs. */
class DocSnippetsTest {

    private static final Path DOC = Path.of("..", "docs", "fencing-s3.md");
    private static final Path EXAMPLE = Path.of("src", "test", "java", "io", "zkfence", "s3", "example",
            "FencedWriteExample.java");

    @Test
    void everyJavaBlockInTheDocIsQuotedFromTheCompiledExample() throws IOException {
        String doc = Files.readString(DOC);
        String example = Files.readString(EXAMPLE);
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        while (m.find()) {
            blocks.add(m.group(1));
        }

        assertThat(blocks).hasSizeGreaterThanOrEqualTo(4);
        for (String block : blocks) {
            assertThat(dedent(example)).as("doc block must appear in %s", EXAMPLE).contains(dedent(block));
        }
    }

    private static String dedent(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty()).reduce("", (a, b) -> a + b + "\n");
    }
}
