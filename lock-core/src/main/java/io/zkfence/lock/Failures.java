package io.zkfence.lock;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;

/** Classifies the failures of asynchronous ZooKeeper operations. */
final class Failures {

    private Failures() {}

    /** The underlying failure, without the future's wrappers. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The ZooKeeper result code, or null if the failure is not a KeeperException. */
    static KeeperException.Code code(Throwable t) {
        Throwable u = unwrap(t);
        return u instanceof KeeperException ke ? ke.code() : null;
    }

    static boolean is(Throwable t, KeeperException.Code expected) {
        return code(t) == expected;
    }

    /**
     * True when the outcome is unknown because the connection went away: the operation may or
     * may not have been applied, and retrying once the client reconnects is the right move. Only
     * ZooKeeper's own codes for that count: anything else (a programming error, a closed client)
     * is not transient, and retrying it would turn an acquire into a silent loop.
     */
    static boolean isConnectionProblem(Throwable t) {
        KeeperException.Code c = code(t);
        return c == KeeperException.Code.CONNECTIONLOSS || c == KeeperException.Code.OPERATIONTIMEOUT;
    }

    /** True when the session behind the operation is gone: its ephemeral nodes are gone or going. */
    static boolean isSessionGone(Throwable t) {
        KeeperException.Code c = code(t);
        return c == KeeperException.Code.SESSIONEXPIRED || c == KeeperException.Code.SESSIONMOVED;
    }
}
