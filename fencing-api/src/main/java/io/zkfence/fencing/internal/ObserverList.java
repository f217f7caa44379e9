package io.zkfence.fencing.internal;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The observers of one lock client or one fence, as their meter binders add them: a copy-on-write
 * list (empty, and so near free, without metrics) that calls each observer in turn and hands a
 * throw to the owner's log instead of to the caller. Not API.
 *
 * @param <T> the observer type
 */
public final class ObserverList<T> {

    private final List<T> observers = new CopyOnWriteArrayList<>();
    /** Who has bound meters here (registries, by identity): one binding per registry. */
    private final Set<Object> bindings = Collections.newSetFromMap(new IdentityHashMap<>());

    private final BiConsumer<T, RuntimeException> failed;

    /**
     * An empty list.
     *
     * @param failed told of an observer that threw, and what (the owner logs it)
     */
    public ObserverList(BiConsumer<T, RuntimeException> failed) {
        this.failed = failed;
    }

    /**
     * Reserves {@code binding} (a meter registry).
     *
     * @param binding what binds observers here
     * @return false if it was bound already
     */
    public boolean bind(Object binding) {
        synchronized (bindings) {
            return bindings.add(binding);
        }
    }

    /**
     * Adds an observer.
     *
     * @param observer told of everything from now on
     */
    public void add(T observer) {
        observers.add(observer);
    }

    /**
     * Whether there is no observer: callers check it first, so that without observers a call
     * allocates nothing (no lambda).
     *
     * @return true without observers
     */
    public boolean isEmpty() {
        return observers.isEmpty();
    }

    /**
     * Calls {@code call} on every observer; one that throws does not stop the others.
     *
     * @param call what to tell each observer
     */
    public void each(Consumer<T> call) {
        for (T o : observers) {
            try {
                call.accept(o);
            } catch (RuntimeException e) {
                failed.accept(o, e);
            }
        }
    }
}
