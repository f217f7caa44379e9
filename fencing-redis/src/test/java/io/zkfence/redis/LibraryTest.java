package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The connectors' shared load-and-call-again step, with scripted answers in place of a client
 * (ConnectorsTest and ClusterTest run it through both clients on real servers).
 */
class LibraryTest {

    /** A client's exception for an error reply. */
    static final class ErrorReply extends RuntimeException {
        ErrorReply(String message) {
            super(message);
        }
    }

    private final AtomicInteger loads = new AtomicInteger();

    /** Answers each call with the next of {@code answers}: a reply, or an exception to throw. */
    private static Supplier<Object> answering(Object... answers) {
        Deque<Object> left = new ArrayDeque<>(List.of(answers));
        return () -> {
            Object next = left.removeFirst();
            if (next instanceof RuntimeException e) {
                throw e;
            }
            return next;
        };
    }

    @Test
    void aServerWithoutTheFunctionGetsTheLibraryAndTheCallAgain() {
        Object reply = Library.call(
                answering(new ErrorReply("ERR Function not found"), List.of("ok")),
                loads::incrementAndGet,
                ErrorReply.class);

        assertThat(reply).isEqualTo(List.of("ok"));
        assertThat(loads).hasValue(1);
    }

    @Test
    void aServerThatHasTheFunctionIsCalledOnceWithoutLoading() {
        Object reply = Library.call(answering(List.of("ok")), loads::incrementAndGet, ErrorReply.class);

        assertThat(reply).isEqualTo(List.of("ok"));
        assertThat(loads).hasValue(0);
    }

    @Test
    void anotherErrorIsThrownWithoutLoading() {
        ErrorReply failure = new ErrorReply("ERR Error running script: boom");
        ErrorReply thrown = assertThrows(
                ErrorReply.class, () -> Library.call(answering(failure), loads::incrementAndGet, ErrorReply.class));

        assertThat(thrown).isSameAs(failure);
        assertThat(loads).hasValue(0);
    }

    @Test
    void aFunctionNotFoundThatIsNotAnErrorReplyIsThrownWithoutLoading() {
        IllegalStateException odd = new IllegalStateException("ERR Function not found");
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> Library.call(answering(odd), loads::incrementAndGet, ErrorReply.class));

        assertThat(thrown).isSameAs(odd);
        assertThat(loads).hasValue(0);
    }

    @Test
    void aFailedLoadIsForgivenWhenTheSecondCallAnswers() {
        Object reply = Library.call(
                answering(new ErrorReply("ERR Function not found"), List.of("ok")),
                () -> {
                    throw new IllegalStateException("another primary is down");
                },
                ErrorReply.class);

        assertThat(reply).isEqualTo(List.of("ok"));
    }

    @Test
    void aFailedLoadIsKeptAsSuppressedWhenTheSecondCallFailsToo() {
        IllegalStateException loading = new IllegalStateException("NOPERM function|load");
        ErrorReply again = new ErrorReply("ERR Function not found");
        ErrorReply thrown = assertThrows(
                ErrorReply.class,
                () -> Library.call(
                        answering(new ErrorReply("ERR Function not found"), again),
                        () -> {
                            throw loading;
                        },
                        ErrorReply.class));

        assertThat(thrown).isSameAs(again);
        assertThat(thrown.getSuppressed()).containsExactly(loading);
    }
}
