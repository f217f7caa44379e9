package io.zkfence.fencing.contract;

import io.zkfence.fencing.StaleTokenException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

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

        @Override
        public void write(String key, long token, String value, Runnable midway) {
            midway.run();
            synchronized (this) {
                admit(key, token);
                tokens.put(key, token);
                values.put(key, value);
            }
        }

        @Override
        public synchronized boolean delete(String key, long token) {
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
