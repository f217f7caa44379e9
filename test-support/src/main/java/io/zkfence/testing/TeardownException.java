package io.zkfence.testing;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Resources a {@link Teardown} closed threw: the message names each one with what it threw, and
 * each failure is attached as a suppressed exception, so none hides another.
 */
public final class TeardownException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private TeardownException(String message) {
        super(message);
    }

    static TeardownException of(String after, int closed, List<Teardown.Failure> failures) {
        String each = failures.stream()
                .map(f -> f.resource() + ": " + f.error())
                .collect(Collectors.joining("\n  ", "\n  ", ""));
        TeardownException e = new TeardownException(
                failures.size() + " of " + closed + " resources failed to close after " + after + ":" + each);
        failures.forEach(f -> e.addSuppressed(f.error()));
        return e;
    }
}
