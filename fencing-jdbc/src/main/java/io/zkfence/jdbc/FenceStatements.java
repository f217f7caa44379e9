package io.zkfence.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The fence's SQL, rendered once per configuration by jOOQ and then run as plain JDBC
 * prepared statements, so that the hot path costs one round trip and no rendering.
 */
final class FenceStatements {

    private static final String KEY = "zkfence_key";
    private static final String TOKEN = "zkfence_token";
    private static final String HOLDER = "zkfence_holder";
    private static final Pattern NAMED_PARAM = Pattern.compile("(?<!:):(zkfence_[a-z]+)");

    /** A statement's SQL with '?' placeholders and the parameter each placeholder binds. */
    record Rendered(String sql, List<String> params) {

        void bind(PreparedStatement ps, String key, long token, String holder) throws SQLException {
            for (int i = 0; i < params.size(); i++) {
                switch (params.get(i)) {
                    case KEY -> ps.setString(i + 1, key);
                    case TOKEN -> ps.setLong(i + 1, token);
                    case HOLDER -> ps.setString(i + 1, holder);
                    default -> throw new IllegalStateException("unknown parameter " + params.get(i));
                }
            }
        }
    }

    /** {@code UPDATE fence SET token=?, holder=?, updated_at=now WHERE key=? AND token<=?}. */
    final Rendered advance;
    /** {@code SELECT token FROM fence WHERE key=? FOR UPDATE}. */
    final Rendered lockedRead;
    /** Inserts a new fence row; on PostgreSQL with {@code ON CONFLICT DO NOTHING}. */
    final Rendered insert;
    /** {@code SELECT token FROM fence WHERE key=?} without locks. */
    final Rendered read;

    FenceStatements(FenceConfig config) {
        DSLContext ctx = DSL.using(config.dialect().sqlDialect(), new Settings()
                .withRenderFormatted(false)
                .withRenderQuotedNames(RenderQuotedNames.EXPLICIT_DEFAULT_UNQUOTED));
        Name tableName = config.schema()
                .map(s -> DSL.unquotedName(s, config.table()))
                .orElseGet(() -> DSL.unquotedName(config.table()));
        Table<Record> table = DSL.table(tableName);
        // Columns are qualified with the table name: unambiguous in any statement shape
        // (PostgreSQL rejects an unqualified column in ON CONFLICT ... WHERE, for one).
        Field<String> key = DSL.field(column(tableName, config.keyColumn()), SQLDataType.VARCHAR);
        Field<Long> token = DSL.field(column(tableName, config.tokenColumn()), SQLDataType.BIGINT);
        Field<String> holder = DSL.field(column(tableName, config.holderColumn()), SQLDataType.VARCHAR);
        Field<java.time.OffsetDateTime> updatedAt =
                DSL.field(column(tableName, config.updatedAtColumn()), SQLDataType.TIMESTAMPWITHTIMEZONE);
        Param<String> pKey = DSL.param(KEY, SQLDataType.VARCHAR);
        Param<Long> pToken = DSL.param(TOKEN, SQLDataType.BIGINT);
        Param<String> pHolder = DSL.param(HOLDER, SQLDataType.VARCHAR);
        Field<java.time.OffsetDateTime> now = DSL.field(nowExpression(config.dialect()), SQLDataType.TIMESTAMPWITHTIMEZONE);

        this.advance = render(ctx, ctx.update(table)
                .set(token, pToken)
                .set(holder, pHolder)
                .set(updatedAt, now)
                .where(key.eq(pKey).and(token.le(pToken))));
        this.lockedRead = render(ctx, ctx.select(token).from(table).where(key.eq(pKey)).forUpdate());
        this.read = render(ctx, ctx.select(token).from(table).where(key.eq(pKey)));
        var insertValues = ctx.insertInto(table, key, token, holder, updatedAt).values(pKey, pToken, pHolder, now);
        // PostgreSQL aborts the whole transaction on a duplicate key, so the insert must not
        // fail there; MariaDB and H2 fail only the statement, and a plain INSERT there keeps
        // every other error (e.g. a too-long value) an error, which INSERT IGNORE would not.
        this.insert = render(ctx, config.dialect() == FenceDialect.POSTGRES ? insertValues.onConflictDoNothing() : insertValues);
    }

    private static Name column(Name table, String column) {
        return DSL.name(table, DSL.unquotedName(column));
    }

    private static String nowExpression(FenceDialect dialect) {
        return switch (dialect) {
            case POSTGRES, H2 -> "current_timestamp";
            // DATETIME(6) holds no zone: store UTC, like the zone-aware columns of the others.
            case MARIADB -> "utc_timestamp(6)";
        };
    }

    private static Rendered render(DSLContext ctx, Query query) {
        String sql = ctx.render(query);
        List<String> params = new ArrayList<>();
        Matcher m = NAMED_PARAM.matcher(ctx.renderNamedParams(query));
        while (m.find()) {
            params.add(m.group(1));
        }
        long placeholders = sql.chars().filter(c -> c == '?').count();
        if (placeholders != params.size()) {
            throw new IllegalStateException("rendered " + placeholders + " placeholders but found " + params
                    + " in: " + sql);
        }
        return new Rendered(sql, List.copyOf(params));
    }
}
