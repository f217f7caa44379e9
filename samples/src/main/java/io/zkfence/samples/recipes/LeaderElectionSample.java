package io.zkfence.samples.recipes;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.recipes.leader.Leader;
import io.zkfence.recipes.leader.LeaderElection;
import io.zkfence.recipes.leader.Leadership;
import io.zkfence.recipes.leader.LeadershipListener;
import java.sql.PreparedStatement;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Leader election with a fenced term. Start it several times (several machines, or several
 * terminals): one instance leads and writes a heartbeat row every second, fenced by its term;
 * stop the leader (Ctrl-C, or {@code kill -STOP} for longer than its session) and the next one
 * in line takes over with a higher term. A deposed leader's writes are rejected by the database.
 *
 * <pre>
 * LeaderElectionSample &lt;zookeeper&gt; &lt;jdbc-url&gt; &lt;user&gt; &lt;password&gt; &lt;instance-name&gt;
 * </pre>
 */
public final class LeaderElectionSample {

    static final String ELECTION = "report-scheduler";

    private LeaderElectionSample() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 5) {
            System.err.println("usage: LeaderElectionSample <zookeeper> <jdbc-url> <user> <password> <instance-name>");
            System.exit(2);
        }
        DataSource db = SampleDatabase.postgres(args[1], args[2], args[3]);
        createTables(db);
        JdbcFence fence = JdbcFence.create(db);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
        try (LockClient client = LockClient.connect(
                        args[0], LockClientConfig.builder().ownerId(args[4]).build());
                LeaderElection election = join(client, fence, args[4], timer)) {
            System.out.println(args[4] + " is a candidate in '" + election.name() + "'");
            stop.await();
        } finally {
            timer.shutdownNow();
        }
    }

    static void createTables(DataSource db) {
        JdbcFence.create(db).createIfMissing();
        SampleDatabase.execute(
                db,
                "create table if not exists leader_heartbeat ("
                        + "leader varchar(100) not null, term bigint not null, at timestamp with time zone default now())");
    }

    // snippet:join
    /** Joins the election; while this instance leads, it writes a heartbeat every second. */
    static LeaderElection join(LockClient client, JdbcFence fence, String instance, ScheduledExecutorService timer) {
        AtomicReference<ScheduledFuture<?>> work = new AtomicReference<>();
        LeaderElection election = LeaderElection.builder(client, ELECTION)
                .listener(new LeadershipListener() {
                    @Override
                    public void elected(Leadership leadership) {
                        work.set(timer.scheduleWithFixedDelay(
                                () -> beat(fence, instance, leadership), 0, 1, TimeUnit.SECONDS));
                    }

                    @Override
                    public void revoked(Leadership leadership) {
                        stop(work, false); // stepping down: let a beat in flight finish
                    }

                    @Override
                    public void lost(Leadership leadership) {
                        stop(work, true); // someone else may lead already: stop now
                    }
                })
                .build();
        election.start();
        return election;
    }

    private static void stop(AtomicReference<ScheduledFuture<?>> work, boolean now) {
        ScheduledFuture<?> running = work.getAndSet(null);
        if (running != null) {
            running.cancel(now);
        }
    }

    private static void beat(JdbcFence fence, String instance, Leadership leadership) {
        if (!leadership.lease().isValid()) {
            return; // SUSPECT: the connection is down, do not write until it is HELD again
        }
        try {
            writeHeartbeat(fence, instance, leadership.term());
        } catch (JdbcStaleTokenException e) {
            leadership.stepDown(); // a newer leader has written: this term is over
        }
    }
    // end:join

    // snippet:who-leads
    /** Which instance to send leader-only requests to; read from ZooKeeper, stale once returned. */
    static Optional<String> leaderInstance(LockClient client) {
        return LeaderElection.currentLeader(client, ELECTION).map(Leader::ownerId);
    }
    // end:who-leads

    // snippet:heartbeat
    /** A leader-only write, fenced by the term: a deposed leader's call throws JdbcStaleTokenException. */
    static void writeHeartbeat(JdbcFence fence, String instance, long term) {
        fence.inTransaction(ELECTION, term, connection -> {
            try (PreparedStatement insert =
                    connection.prepareStatement("insert into leader_heartbeat (leader, term) values (?, ?)")) {
                insert.setString(1, instance);
                insert.setLong(2, term);
                return insert.executeUpdate();
            }
        });
    }
    // end:heartbeat
}
