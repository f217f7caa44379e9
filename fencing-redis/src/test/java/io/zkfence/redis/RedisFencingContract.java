package io.zkfence.redis;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;
import io.zkfence.fencing.contract.FencedResource;
import io.zkfence.fencing.contract.FencingContract;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * fencing-api's {@link FencingContract} on Redis, one subclass per client library: a value is a
 * string key written by a fenced {@code SET} whose fence is the key itself, with an
 * {@code RPUSH} of the value to a history list in the same script (so the history is the commit
 * order). Read back, listed and counted with a plain Lettuce connection.
 */
abstract class RedisFencingContract extends FencingContract {

    /** The connector under test, over the shared server. */
    protected abstract RedisConnector connector();

    @Override
    protected FencedResource newResource() {
        Redis.CountingConnector counting = new Redis.CountingConnector(connector());
        return new KeyResource(Redis.fence(counting), counting, Redis.plain());
    }

    /** The history list of {@code key}, in its hash slot. */
    static String historyKey(String key) {
        return Slots.hasHashTag(key) ? "history:" + key : "history:{" + key + "}";
    }

    private record KeyResource(RedisFence fence, Redis.CountingConnector counting, RedisCommands<String, String> plain)
            implements FencedResource {

        /**
         * The check and the write are one script, so there is no moment between them to pause
         * in: the writer pauses before it sends the script.
         */
        @Override
        public void write(String key, long token, String value, Runnable midway) {
            midway.run();
            fence.write(key, token, RedisWrite.set(key, value), RedisWrite.rpush(historyKey(key), value));
        }

        @Override
        public boolean delete(String key, long token) {
            return fence.write(key, token, RedisWrite.del(key)).longReply(0) == 1;
        }

        @Override
        public Optional<String> read(String key) {
            return Optional.ofNullable(plain.get(key));
        }

        @Override
        public OptionalLong storedToken(String key) {
            return fence.token(key);
        }

        @Override
        public String resourceName(String key) {
            return key;
        }

        @Override
        public long requestsSent() {
            return counting.calls();
        }

        @Override
        public Set<String> keysUnder(String prefix) {
            Set<String> keys = new HashSet<>();
            ScanIterator<String> scan =
                    ScanIterator.scan(plain, ScanArgs.Builder.limit(1000).match(glob(prefix) + "*"));
            while (scan.hasNext()) {
                String key = scan.next();
                if (key.startsWith(prefix)) {
                    keys.add(key);
                }
            }
            return keys;
        }

        @Override
        public Optional<List<String>> history(String key) {
            return Optional.of(plain.lrange(historyKey(key), 0, -1));
        }

        private static String glob(String literal) {
            return literal.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
        }
    }
}
