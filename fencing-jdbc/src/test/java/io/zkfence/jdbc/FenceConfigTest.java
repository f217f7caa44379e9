package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FenceConfigTest {

    @Test
    void defaultsMatchTheShippedDdl() {
        FenceConfig config = FenceConfig.defaults(FenceDialect.POSTGRES);

        assertThat(config.qualifiedTable()).isEqualTo("zkfence_fence");
        assertThat(config.schema()).isEmpty();
        assertThat(config.keyColumn()).isEqualTo("resource_key");
        assertThat(config.tokenColumn()).isEqualTo("fence_token");
        assertThat(config.holderColumn()).isEqualTo("holder");
        assertThat(config.updatedAtColumn()).isEqualTo("updated_at");
        assertThat(config.holderLabel()).isNotBlank();
        assertThat(config.transactionIsolation()).isEmpty();
        for (FenceDialect d : FenceDialect.values()) {
            assertThat(d.ddl()).contains("zkfence_fence", "resource_key", "fence_token", "holder", "updated_at");
        }
    }

    @Test
    void schemaQualifiesTheTable() {
        FenceConfig config = FenceConfig.builder(FenceDialect.H2)
                .schema("ops")
                .table("fences")
                .build();

        assertThat(config.qualifiedTable()).isEqualTo("ops.fences");
        assertThat(config.toString()).contains("ops.fences", "H2");
    }

    static Stream<Arguments> badNames() {
        return Stream.of(
                Arguments.of(
                        "table",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.table("fence; drop table users"),
                        "not a plain SQL identifier"),
                Arguments.of(
                        "table",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.table("\"quoted\""),
                        "not a plain SQL identifier"),
                Arguments.of(
                        "table",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.table("1fence"),
                        "not a plain SQL identifier"),
                Arguments.of(
                        "table", (UnaryOperator<FenceConfig.Builder>) b -> b.table(""), "not a plain SQL identifier"),
                Arguments.of("table", (UnaryOperator<FenceConfig.Builder>) b -> b.table(null), "must not be null"),
                Arguments.of("table", (UnaryOperator<FenceConfig.Builder>) b -> b.table("order"), "reserved SQL word"),
                Arguments.of(
                        "schema",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.schema("my-schema"),
                        "not a plain SQL identifier"),
                Arguments.of(
                        "keyColumn", (UnaryOperator<FenceConfig.Builder>) b -> b.keyColumn("KEY"), "reserved SQL word"),
                Arguments.of(
                        "tokenColumn",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.tokenColumn("token value"),
                        "not a plain SQL identifier"),
                Arguments.of(
                        "holderColumn",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.holderColumn("user"),
                        "reserved SQL word"),
                Arguments.of(
                        "updatedAtColumn",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.updatedAtColumn("a".repeat(64)),
                        "the limit is 63"),
                Arguments.of(
                        "column name 'fence_token'",
                        (UnaryOperator<FenceConfig.Builder>) b -> b.holderColumn("FENCE_TOKEN"),
                        "must differ"));
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("badNames")
    void illegalIdentifiersAreRefusedNamingTheSetting(
            String setting, UnaryOperator<FenceConfig.Builder> change, String problem) {
        FenceConfig.Builder builder = change.apply(FenceConfig.builder(FenceDialect.MARIADB));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);

        assertThat(e.getMessage()).containsIgnoringCase(setting).contains(problem);
    }

    @Test
    void holderLabelMustBeShortAndNotBlank() {
        assertThat(assertThrows(
                                IllegalArgumentException.class,
                                () -> FenceConfig.builder(FenceDialect.H2)
                                        .holderLabel(" ")
                                        .build())
                        .getMessage())
                .contains("holderLabel");
        assertThat(assertThrows(
                                IllegalArgumentException.class,
                                () -> FenceConfig.builder(FenceDialect.H2)
                                        .holderLabel("x".repeat(256))
                                        .build())
                        .getMessage())
                .contains("holderLabel", "255");
        assertThat(FenceConfig.builder(FenceDialect.H2)
                        .holderLabel("x".repeat(255))
                        .build()
                        .holderLabel())
                .hasSize(255);
    }

    @Test
    void onlyIsolationLevelsThatKeepUncommittedWritesInvisibleAreAccepted() {
        for (int level : new int[] {Connection.TRANSACTION_READ_UNCOMMITTED, Connection.TRANSACTION_NONE, 3}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> FenceConfig.builder(FenceDialect.POSTGRES)
                            .transactionIsolation(level)
                            .build());
            assertThat(e.getMessage()).contains("transactionIsolation", Integer.toString(level));
        }
        assertThat(FenceConfig.builder(FenceDialect.POSTGRES)
                        .transactionIsolation(Connection.TRANSACTION_SERIALIZABLE)
                        .build()
                        .transactionIsolation())
                .hasValue(Connection.TRANSACTION_SERIALIZABLE);
    }

    @Test
    void tokenColumnNamesAreValidatedToo() {
        assertThrows(IllegalArgumentException.class, () -> TokenColumn.named("fence_token = 0 or 1"));
        assertThat(TokenColumn.named("fence_token").field().getName()).isEqualTo("fence_token");
    }
}
