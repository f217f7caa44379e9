package io.zkfence.recipes.migration;

import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/** Java migrations (version 2) the tests pass to Flyway, between the SQL steps V1 and V3. */
final class TestMigrations {

    private TestMigrations() {}

    /** A pause shared by the runners of one test: the first runner to reach it stops there until released. */
    static final class Pause {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicBoolean armed = new AtomicBoolean(true);

        /** A pause that never stops anyone. */
        static Pause none() {
            Pause p = new Pause();
            p.armed.set(false);
            return p;
        }

        void passThrough() throws InterruptedException {
            if (armed.getAndSet(false)) {
                entered.countDown();
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the paused step");
                }
            }
        }
    }

    static void recordStep(Context context, String step) throws Exception {
        try (Statement s = context.getConnection().createStatement()) {
            s.execute("insert into applied_steps (step) values ('" + step + "')");
        }
    }

    /** Records itself, then goes through the pause (the first runner stops there). */
    static final class V2__Pausable_step extends BaseJavaMigration {
        private final Pause pause;

        V2__Pausable_step(Pause pause) {
            this.pause = pause;
        }

        @Override
        public void migrate(Context context) throws Exception {
            recordStep(context, "V2");
            pause.passThrough();
        }
    }

    /** Records itself and fails the first time any runner applies it. */
    static final class V2__Fails_once extends BaseJavaMigration {
        private final AtomicBoolean failNext;

        V2__Fails_once(AtomicBoolean failNext) {
            this.failNext = failNext;
        }

        @Override
        public void migrate(Context context) throws Exception {
            recordStep(context, "V2");
            if (failNext.getAndSet(false)) {
                throw new IllegalStateException("V2 broke half way");
            }
        }
    }

    /** Runs outside any transaction, as Flyway does for e.g. CREATE INDEX CONCURRENTLY. */
    static final class V2__Outside_transaction extends BaseJavaMigration {
        @Override
        public boolean canExecuteInTransaction() {
            return false;
        }

        @Override
        public void migrate(Context context) throws Exception {
            recordStep(context, "V2");
        }
    }
}
