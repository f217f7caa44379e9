package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.jdbc.FenceStatements.Bind;
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
        assertThat(sql.advance.sql())
                .startsWith("UPDATE zkfence_fence SET ")
                .contains("zkfence_fence.fence_token <= ?")
                .doesNotContain("INSERT", "MERGE", "CONFLICT", "DUPLICATE", "--");
        assertThat(sql.advance.binds()).containsExactly(Bind.TOKEN, Bind.HOLDER, Bind.KEY, Bind.TOKEN);
        assertThat(sql.lockedRead.sql()).endsWith("FOR UPDATE");
        assertThat(sql.lockedRead.binds()).containsExactly(Bind.KEY);
        assertThat(sql.read.sql()).doesNotContain("FOR UPDATE");
        assertThat(sql.read.binds()).containsExactly(Bind.KEY);
        assertThat(sql.insert.binds()).containsExactly(Bind.KEY, Bind.TOKEN, Bind.HOLDER);
    }

    @ParameterizedTest
    @EnumSource(FenceDialect.class)
    void everyStatementIsAResourceBesideTheDdl(FenceDialect dialect) {
        for (String file :
                List.of("fence_advance.sql", "fence_locked_read.sql", "fence_insert.sql", "fence_read.sql")) {
            assertThat(FenceDialect.class.getClassLoader().getResource(dialect.resource(file)))
                    .as(file)
                    .isNotNull();
            assertThat(dialect.resource(file)).startsWith(dialect.ddlResource().replace("zkfence_fence.sql", ""));
        }
    }

    @Test
    void onlyPostgresInsertsWithOnConflictBecauseAFailedStatementAbortsItsTransaction() {
        assertThat(new FenceStatements(FenceConfig.defaults(FenceDialect.POSTGRES)).insert.sql())
                .endsWith("ON CONFLICT DO NOTHING");
        assertThat(new FenceStatements(FenceConfig.defaults(FenceDialect.MARIADB)).insert.sql())
                .doesNotContain("IGNORE", "DUPLICATE");
        assertThat(new FenceStatements(FenceConfig.defaults(FenceDialect.H2)).insert.sql())
                .doesNotContain("MERGE");
    }

    @Test
    void mariaDbStoresUtcBecauseItsColumnHasNoZone() {
        assertThat(new FenceStatements(FenceConfig.defaults(FenceDialect.MARIADB)).advance.sql())
                .contains("UTC_TIMESTAMP(6)");
    }

    @Test
    void configuredNamesAreRenderedUnquotedAndQualified() {
        FenceStatements sql = new FenceStatements(FenceConfig.builder(FenceDialect.POSTGRES)
                .schema("ops")
                .table("Fences")
                .keyColumn("lock_name")
                .tokenColumn("tok")
                .holderColumn("owner")
                .updatedAtColumn("touched")
                .build());

        assertThat(sql.advance.sql())
                .isEqualTo("UPDATE ops.Fences SET tok = ?, owner = ?, touched = CURRENT_TIMESTAMP"
                        + " WHERE ops.Fences.lock_name = ? AND ops.Fences.tok <= ?");
        assertThat(sql.insert.sql())
                .isEqualTo("INSERT INTO ops.Fences (lock_name, tok, owner, touched)"
                        + " VALUES (?, ?, ?, CURRENT_TIMESTAMP) ON CONFLICT DO NOTHING");
    }

    @Test
    void ddlIsTheShippedScriptWithConfiguredNames() {
        List<String> ddl = Ddl.statements(FenceConfig.builder(FenceDialect.MARIADB)
                .table("fences")
                .keyColumn("lock_name")
                .tokenColumn("tok")
                .holderColumn("owner")
                .updatedAtColumn("touched")
                .build());

        assertThat(ddl).hasSize(1);
        assertThat(ddl.get(0))
                .startsWith("CREATE TABLE IF NOT EXISTS fences (")
                .contains(
                        "lock_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL",
                        "tok  BIGINT",
                        "owner",
                        "touched",
                        "CHECK (tok > 0)",
                        "PRIMARY KEY (lock_name)")
                .doesNotContain("zkfence_fence", "resource_key", "fence_token", "--");
    }
}
