package io.zkfence.consumer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkfence.samples.Quickstart;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The README's quickstart (src/main/java, copied from samples by the outer build), compiled against
 * the staged artifacts, run against a real ensemble started with zkfence-testkit.
 */
class ReadmeQuickstartTest {

    @Test
    void readmeQuickstartTakesTheLockAndPrintsItsToken() {
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.builder().servers(3).start()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream original = System.out;
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                Quickstart.main(new String[] {zk.connectString()});
            } finally {
                System.setOut(original);
            }
            String printed = out.toString(StandardCharsets.UTF_8);
            assertTrue(printed.matches("(?s)holding inventory:sku:123 with fencing token \\d{10,}\\R"),
                    () -> "the quickstart printed: " + printed);
        }
    }
}
