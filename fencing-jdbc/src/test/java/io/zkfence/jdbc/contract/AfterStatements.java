package io.zkfence.jdbc.contract;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;

/**
 * Runs an action on the calling thread right after the n-th statement a context executes has
 * ended (result read, statement closed): the first action after the first statement, and so on.
 * Makes "another transaction writes in between two statements of this call" an ordinary step.
 */
final class AfterStatements implements ExecuteListener {

    private final List<Runnable> actions;
    private final AtomicInteger statements = new AtomicInteger();

    private AfterStatements(List<Runnable> actions) {
        this.actions = List.copyOf(actions);
    }

    /** A context like {@code dsl} that runs {@code actions} in turn after its statements. */
    static DSLContext on(DSLContext dsl, Runnable... actions) {
        return dsl.configuration()
                .deriveAppending(new AfterStatements(List.of(actions)))
                .dsl();
    }

    @Override
    public void end(ExecuteContext ctx) {
        int n = statements.getAndIncrement();
        if (n < actions.size()) {
            actions.get(n).run();
        }
    }
}
