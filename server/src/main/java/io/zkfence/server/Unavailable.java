package io.zkfence.server;

import java.time.Duration;
import org.apache.zookeeper.KeeperException;

/**
 * The service's 503 {@link ErrorCode#UNAVAILABLE} answers, each shape built here once: the call
 * could not be finished now for a reason a retry may cure (ZooKeeper did not answer in time,
 * refused for a reason that is not about the data, or lost an answer too often). Each names
 * what failed; a client retries, with the same {@code requestId} for an acquire. Never a lockToken
 * in the words.
 */
final class Unavailable {

    private Unavailable() {}

    /** ZooKeeper answered {@code what} with {@code e}, an error the caller cannot act on. */
    static LockServiceException zooKeeperAnswered(String what, KeeperException e) {
        return because(what + " failed: ZooKeeper answered " + e.code(), e);
    }

    /**
     * No answer to {@code what} within {@code within}; {@code last} is the last error ZooKeeper's
     * client gave while the request was sent again (null: it was sent once).
     */
    static LockServiceException noAnswer(String what, Duration within, KeeperException.Code last, Throwable cause) {
        return because(
                what + " failed: no answer from ZooKeeper within " + within.toSeconds() + " s"
                        + (last == null ? "" : " (" + last + ")"),
                cause);
    }

    /** ZooKeeper's answer to {@code what} was lost {@code times} times in a row. */
    static LockServiceException answerLost(String what, int times, Throwable cause) {
        return because(what + " failed: ZooKeeper's answer was lost " + times + " times", cause);
    }

    /** {@code what} failed with something that is not an answer of ZooKeeper's. */
    static LockServiceException failed(String what, Throwable cause) {
        return because(what + " failed: " + cause, cause);
    }

    /** The thread waiting for {@code what} was interrupted (the interrupt flag is the caller's to restore). */
    static LockServiceException interrupted(String what, InterruptedException e) {
        return because(what + " was interrupted", e);
    }

    /** Any other 503 {@code UNAVAILABLE}, in {@code detail}'s words. */
    static LockServiceException because(String detail, Throwable cause) {
        return cause == null
                ? new LockServiceException(ErrorCode.UNAVAILABLE, detail)
                : new LockServiceException(ErrorCode.UNAVAILABLE, detail, cause);
    }
}
