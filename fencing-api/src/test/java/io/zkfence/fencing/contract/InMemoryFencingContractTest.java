package io.zkfence.fencing.contract;

import io.zkfence.fencing.StaleTokenException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The contract against the smallest correct implementation, a map under a monitor: shows what it
 * asks of an adapter and that it passes one that keeps the rule.
 */
class InMemoryFencingContractTest extends FencingContract {

    @Override
    protected FencedResource newResource() {
        return new InMemory();
    }

    private static final class InMemory implements FencedResource {

        private final Map<String, Long> tokens = new HashMap<>();
        private final Map<String, String> values = new HashMap<>();
        private final Map<String, List<String>> histories = new HashMap<>();
        /** Calls that reached the map: what a store would have been sent. */
        private long calls;

        @Override
        public void write(String key, long token, String value, Runnable midway) {
            check(key, token);
            midway.run();
            synchronized (this) {
                calls++;
                admit(key, token);
                tokens.put(key, token);
                values.put(key, value);
                histories.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
            }
        }

        @Override
        public synchronized boolean delete(String key, long token) {
            check(key, token);
            calls++;
            admit(key, token);
            tokens.put(key, token);
            return values.remove(key) != null;
        }

        @Override
        public synchronized Optional<String> read(String key) {
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public synchronized OptionalLong storedToken(String key) {
            Long stored = tokens.get(key);
            return stored == null ? OptionalLong.empty() : OptionalLong.of(stored);
        }

        @Override
        public String resourceName(String key) {
            return "memory:" + key;
        }

        @Override
        public synchronized long requestsSent() {
            return calls;
        }

        @Override
        public synchronized Set<String> keysUnder(String prefix) {
            return values.keySet().stream().filter(k -> k.startsWith(prefix)).collect(Collectors.toSet());
        }

        @Override
        public synchronized Optional<List<String>> history(String key) {
            return Optional.of(List.copyOf(histories.getOrDefault(key, List.of())));
        }

        /** The key and token rules every adapter keeps, here in their smallest form. */
        private static void check(String key, long token) {
            if (key.isEmpty()
                    || key.indexOf('\0') >= 0
                    || !StandardCharsets.UTF_16.newEncoder().canEncode(key)) {
                throw new IllegalArgumentException(
                        "key must be non-empty well-formed Unicode without NUL: '" + key + "'");
            }
            if (token < 1) {
                throw new IllegalArgumentException("token must be >= 1 but was " + token);
            }
        }

        private void admit(String key, long token) {
            Long stored = tokens.get(key);
            if (stored != null && stored > token) {
                throw new Stale(resourceName(key), token, stored);
            }
        }
    }

    private static final class Stale extends StaleTokenException {

        private static final long serialVersionUID = 1L;

        Stale(String resource, long presented, long stored) {
            super("stale token " + presented + " for " + resource + ", stored " + stored, resource, presented, stored);
        }
    }
}
