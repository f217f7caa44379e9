package io.zkfence.samples.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The sample itself; consumer-check's jdbc-without-jooq project runs it with no jOOQ on the class path. */
class PlainJdbcFencingTest {

    @Test
    void theFormerHoldersWriteIsRefusedAndTheNextHolderWritesInItsOwnTransaction() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:plain-jdbc-sample-test;DB_CLOSE_DELAY=-1");

        assertThat(PlainJdbcFencing.run(dataSource))
                .isEqualTo("stale write refused: presented 1, stored 2; stock 30 at token 3");
    }
}
