package io.zkfence.jdbc.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.jdbc.FenceConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * Every keyword the live engine lists is either refused by {@link FenceConfig.Builder#build()},
 * with a message naming the setting, or parses as a plain table and column name on that engine:
 * a name the configuration accepts never turns into a syntax error later.
 */
public abstract class ReservedWordsContract extends FenceTestBase {

    /**
     * H2 does not list its keywords in a table: its documented reserved words (H2 2.x, "Keywords /
     * Reserved Words") are checked together with what {@code getSQLKeywords()} reports.
     */
    private static final List<String> H2_DOCUMENTED = List.of(
            "ALL",
            "AND",
            "ANY",
            "ARRAY",
            "AS",
            "ASYMMETRIC",
            "AUTHORIZATION",
            "BETWEEN",
            "BOTH",
            "CASE",
            "CAST",
            "CHECK",
            "CONSTRAINT",
            "CROSS",
            "CURRENT_CATALOG",
            "CURRENT_DATE",
            "CURRENT_PATH",
            "CURRENT_ROLE",
            "CURRENT_SCHEMA",
            "CURRENT_TIME",
            "CURRENT_TIMESTAMP",
            "CURRENT_USER",
            "DAY",
            "DEFAULT",
            "DISTINCT",
            "ELSE",
            "END",
            "EXCEPT",
            "EXISTS",
            "FALSE",
            "FETCH",
            "FOR",
            "FOREIGN",
            "FROM",
            "FULL",
            "GROUP",
            "GROUPS",
            "HAVING",
            "HOUR",
            "IF",
            "ILIKE",
            "IN",
            "INNER",
            "INTERSECT",
            "INTERVAL",
            "IS",
            "JOIN",
            "KEY",
            "LEADING",
            "LEFT",
            "LIKE",
            "LIMIT",
            "LOCALTIME",
            "LOCALTIMESTAMP",
            "MINUS",
            "MINUTE",
            "MONTH",
            "NATURAL",
            "NOT",
            "NULL",
            "OFFSET",
            "ON",
            "OR",
            "ORDER",
            "OVER",
            "PARTITION",
            "PRIMARY",
            "QUALIFY",
            "RANGE",
            "REGEXP",
            "RIGHT",
            "ROW",
            "ROWNUM",
            "ROWS",
            "SECOND",
            "SELECT",
            "SESSION_USER",
            "SET",
            "SOME",
            "SYMMETRIC",
            "SYSTEM_USER",
            "TABLE",
            "TO",
            "TOP",
            "TRAILING",
            "TRUE",
            "UESCAPE",
            "UNION",
            "UNIQUE",
            "UNKNOWN",
            "USER",
            "USING",
            "VALUE",
            "VALUES",
            "WHEN",
            "WHERE",
            "WINDOW",
            "WITH",
            "YEAR",
            "_ROWID_");

    @Test
    void everyKeywordOfTheEngineIsRefusedByTheConfigOrWorksAsAName() throws SQLException {
        Set<String> words = keywords();
        assertThat(words).as("the engine lists its keywords").hasSizeGreaterThan(50);
        List<String> problems = new ArrayList<>();
        try (Connection c = engine().connection()) {
            for (String word : words) {
                // Statements that parse the word where the fence puts the name, and fail (when
                // they parse) only because the table does not exist: nothing is changed.
                boolean tableOk = parses(c, "alter table " + word + " add zk_probe_column int")
                        && parses(c, "select 1 from " + word + " where 1 = 0");
                boolean schemaOk = parses(c, "alter table " + word + ".zk_no_such_table add zk_probe_column int");
                boolean columnOk = parses(c, "alter table zk_no_such_table add " + word + " int");
                check(problems, word, "table", tableOk, (b, w) -> b.table(w));
                check(problems, word, "schema", schemaOk, (b, w) -> b.schema(w));
                check(problems, word, "keyColumn", columnOk, (b, w) -> b.keyColumn(w));
                check(problems, word, "tokenColumn", columnOk, (b, w) -> b.tokenColumn(w));
                check(problems, word, "holderColumn", columnOk, (b, w) -> b.holderColumn(w));
                check(problems, word, "updatedAtColumn", columnOk, (b, w) -> b.updatedAtColumn(w));
            }
        }
        assertThat(problems)
                .as("keywords accepted by FenceConfig that are syntax errors on " + engine())
                .isEmpty();
    }

    private void check(
            List<String> problems,
            String word,
            String knob,
            boolean engineAccepts,
            BiFunction<FenceConfig.Builder, String, FenceConfig.Builder> set) {
        FenceConfig.Builder builder = FenceConfig.builder(engine().dialect());
        try {
            set.apply(builder, word).build();
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().contains(knob) || !e.getMessage().contains(word)) {
                problems.add(
                        word + " as " + knob + ": message does not name the setting and the word: " + e.getMessage());
            }
            return;
        }
        if (!engineAccepts) {
            problems.add(word.toLowerCase(Locale.ROOT) + " as " + knob);
        }
    }

    /** Whether the engine parses the statement (on a table that does not exist): any error but a syntax error counts. */
    private boolean parses(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
            return true;
        } catch (SQLException e) {
            return !isSyntaxError(e);
        }
    }

    private boolean isSyntaxError(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return switch (engine().dialect()) {
            case POSTGRES -> state.equals("42601");
            case MARIADB -> e.getErrorCode() == 1064;
            case H2 -> state.equals("42000") || state.equals("42001");
        };
    }

    private Set<String> keywords() throws SQLException {
        Set<String> words = new TreeSet<>();
        try (Connection c = engine().connection();
                Statement s = c.createStatement()) {
            switch (engine().dialect()) {
                case POSTGRES -> collect(s, "select word from pg_get_keywords()", words);
                case MARIADB -> collect(s, "select word from information_schema.keywords", words);
                case H2 -> {
                    for (String w : c.getMetaData().getSQLKeywords().split(",")) {
                        words.add(w.strip());
                    }
                    words.addAll(H2_DOCUMENTED);
                }
            }
        }
        words.removeIf(w -> !w.matches("[A-Za-z_][A-Za-z0-9_]*"));
        return words;
    }

    private static void collect(Statement s, String sql, Set<String> words) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                words.add(rs.getString(1));
            }
        }
    }
}
