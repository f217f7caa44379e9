package io.zkfence.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;

class QuickstartTest {

    @Test
    void quickstartTakesTheLockAndPrintsItsToken() throws Exception {
        try (TestingCluster zk = new TestingCluster(3)) {
            zk.start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream original = System.out;
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                Quickstart.main(new String[] {zk.getConnectString()});
            } finally {
                System.setOut(original);
            }
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .matches("(?s)holding inventory:sku:123 with fencing token \\d{10,}\\R");
        }
    }
}
