package io.zkfence.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.samples.jdbc.PlainJdbcFencing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * samples' PlainJdbcFencing (src/main/java, copied by the outer build), compiled against the staged
 * zkfence-fencing-jdbc and run on H2 with no jOOQ on the class path.
 */
class PlainJdbcWithoutJooqTest {

    @Test
    void jooqIsNotOnTheClassPath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.jooq.DSLContext"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.jooq.SQLDialect"));
    }

    @Test
    void theSampleFencesOffTheStaleWriteWithoutJooq() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            PlainJdbcFencing.main(new String[] {"jdbc:h2:mem:without-jooq;DB_CLOSE_DELAY=-1"});
        } finally {
            System.setOut(original);
        }
        assertEquals("stale write refused: presented 1, stored 2; stock 30 at token 3",
                out.toString(StandardCharsets.UTF_8).strip());
    }
}
