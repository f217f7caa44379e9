package io.zkfence.redis;

import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * What a fenced call the server accepted answered: the fence key, the token the fence record now
 * holds, and the reply of each write in order (for {@link RedisFence#eval}, the script's one
 * reply). Replies are as Redis sends them: {@link Long} for integers, {@link String} for strings
 * and statuses ({@code "OK"}), {@link List} for arrays, {@code null} for nil (a {@code SET} kept
 * from being set by {@code NX} or {@code XX}).
 *
 * @param fence the fence key
 * @param token the token the fence accepted, now stored (or lower than the one stored)
 * @param replies the writes' replies, in order
 */
public record FencedReply(String fence, long token, List<Object> replies) {

    /**
     * Creates it; only the fence does.
     *
     * @param fence the fence key
     * @param token the token
     * @param replies the replies
     */
    public FencedReply {
        Objects.requireNonNull(fence, "fence");
        replies = Collections.unmodifiableList(replies);
    }

    /**
     * The reply of write {@code index}.
     *
     * @param index from 0
     * @return the reply, possibly null
     */
    public Object reply(int index) {
        return replies.get(index);
    }

    /**
     * The integer reply of write {@code index} ({@code INCRBY}'s new value, a list's length).
     *
     * @param index from 0
     * @return the integer
     * @throws IllegalStateException when that reply is not an integer
     */
    public long longReply(int index) {
        Object reply = replies.get(index);
        if (reply instanceof Long l) {
            return l;
        }
        throw new IllegalStateException("reply " + index + " is not an integer but " + reply);
    }
}
