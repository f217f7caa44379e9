package io.zkfence.lock.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;

/**
 * zkfence's one classification of the failures of ZooKeeper requests, for every module that sends
 * them. It says what a failure means; what to do about it is the caller's:
 *
 * <ul>
 *   <li>{@linkplain #isConnectionProblem a connection problem}: the answer was lost with the
 *       connection, and the request may or may not have been applied;
 *   <li>{@linkplain #isSessionGone the session is gone}: its ephemeral nodes are gone or going. A
 *       caller whose state hangs on the session (lock-core's queue node) starts again; one whose
 *       writes do not (the lock service's entries persist, and what depends on its session is
 *       checked in the same multi) sends the request again on the new session;
 *   <li>{@linkplain #isServerTrouble trouble of the server}: the server refused for a reason that
 *       is not about the data, and waiting will not change that within a call;
 *   <li>anything else is ZooKeeper's answer about the data (no node, bad version, node exists),
 *       for the caller to decide, or not a ZooKeeper failure at all.
 * </ul>
 */
public final class Failures {

    private Failures() {}

    /** The underlying failure, without the future's wrappers. */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The ZooKeeper result code, or null if the failure is not a KeeperException. */
    public static KeeperException.Code code(Throwable t) {
        Throwable u = unwrap(t);
        return u instanceof KeeperException ke ? ke.code() : null;
    }

    /** True if the failure is a KeeperException with the code {@code expected}. */
    public static boolean is(Throwable t, KeeperException.Code expected) {
        return code(t) == expected;
    }

    /**
     * True when the outcome is unknown because the connection went away: the operation may or
     * may not have been applied, and retrying once the client reconnects is the right move. Only
     * ZooKeeper's own codes for that count: anything else (a programming error, a closed client)
     * is not transient, and retrying it would turn an acquire into a silent loop.
     */
    public static boolean isConnectionProblem(Throwable t) {
        KeeperException.Code c = code(t);
        return c == KeeperException.Code.CONNECTIONLOSS || c == KeeperException.Code.OPERATIONTIMEOUT;
    }

    /** True when the session behind the operation is gone: its ephemeral nodes are gone or going. */
    public static boolean isSessionGone(Throwable t) {
        KeeperException.Code c = code(t);
        return c == KeeperException.Code.SESSIONEXPIRED || c == KeeperException.Code.SESSIONMOVED;
    }

    /**
     * True when the request's answer was lost with the connection or the session: {@link
     * #isConnectionProblem} or {@link #isSessionGone}. The request may have been applied; sending
     * it again, or reading back what happened, is how to go on.
     */
    public static boolean isAnswerLost(Throwable t) {
        return isConnectionProblem(t) || isSessionGone(t);
    }

    /**
     * True for a refusal about the connection or the server, not about the data: a system or
     * marshalling error, an unimplemented operation, a reconfiguration, failed authentication, a
     * throttled operation or an exceeded quota.
     */
    public static boolean isServerTrouble(Throwable t) {
        KeeperException.Code c = code(t);
        return c == KeeperException.Code.SYSTEMERROR
                || c == KeeperException.Code.MARSHALLINGERROR
                || c == KeeperException.Code.UNIMPLEMENTED
                || c == KeeperException.Code.NEWCONFIGNOQUORUM
                || c == KeeperException.Code.RECONFIGINPROGRESS
                || c == KeeperException.Code.AUTHFAILED
                || c == KeeperException.Code.THROTTLEDOP
                || c == KeeperException.Code.QUOTAEXCEEDED;
    }
}
