package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FenceStatementsTest {

    @ParameterizedTest
    @EnumSource(FenceDialect.class)
    void theAdvanceIsOnePlainConditionalUpdateOnEveryDialect(FenceDialect dialect) {
        FenceStatements sql = new FenceStatements(FenceConfig.defaults(dialect));

        // No upsert on the hot path: its row count is not an exact accept signal everywhere.
        assertThat(sql.advance.sql()).startsWith("update zkfence_fence set ")
                .contains("fence_token <= ").doesNotContain("insert", "merge", "conflict", "duplicate");
        assertThat(sql.advance.params()).containsExactly("zkfence_token", "zkfence_holder", "zkfence_key", "zkfence_token");
        assertThat(sql.lockedRead.sql()).endsWith("for update");
        assertThat(sql.read.sql()).doesNotContain("for update");
    }

    @Test
    void onlyPostgresInsertsWithOnConflictBecauseAFailedStatementAbortsItsTransaction() {
        assertThat(new FenceStatements(FenceConfig.defaults(FenceDialect.POSTGRES)).insert.sql())
                .endsWith("on conflict do nothing");
        assertThat(new FenceStatements(FenceConfig.defaults(FenceDialect.MARIADB)).insert.sql())
                .doesNotContain("ignore", "duplicate");
        assertThat(new FenceStatements(FenceConfig.defaults(FenceDialect.H2)).insert.sql())
                .doesNotContain("merge");
    }

    @Test
    void configuredNamesAreRenderedUnquotedAndQualified() {
        FenceStatements sql = new FenceStatements(FenceConfig.builder(FenceDialect.POSTGRES)
                .schema("ops").table("Fences").keyColumn("lock_name").tokenColumn("tok").build());

        assertThat(sql.advance.sql()).contains("ops.Fences.tok <= ?", "ops.Fences.lock_name = ?").doesNotContain("\"");
    }

    @Test
    void ddlIsTheShippedScriptWithConfiguredNames() {
        List<String> ddl = Ddl.statements(FenceConfig.builder(FenceDialect.MARIADB)
                .table("fences").keyColumn("lock_name").tokenColumn("tok").holderColumn("owner")
                .updatedAtColumn("touched").build());

        assertThat(ddl).hasSize(1);
        assertThat(ddl.get(0)).startsWith("CREATE TABLE IF NOT EXISTS fences (")
                .contains("lock_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL",
                        "tok  BIGINT", "owner", "touched", "CHECK (tok > 0)", "PRIMARY KEY (lock_name)")
                .doesNotContain("zkfence_fence", "resource_key", "fence_token", "--");
    }
}
