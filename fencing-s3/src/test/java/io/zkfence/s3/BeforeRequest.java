package io.zkfence.s3;

import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Runs an action on the calling thread just before the client sends a given operation on a given
 * key, at most {@code times} times. Makes races deterministic: "another writer gets in between
 * this writer's read and its conditional write" becomes an ordinary sequential step.
 */
final class BeforeRequest implements ExecutionInterceptor {

    private final String operation;
    private final String key;
    private final int times;
    private final Runnable action;
    private final AtomicInteger fired = new AtomicInteger();

    BeforeRequest(String operation, String key, int times, Runnable action) {
        this.operation = operation;
        this.key = key;
        this.times = times;
        this.action = action;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (!operation.equals(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME))) {
            return;
        }
        if (!context.request()
                .getValueForField("Key", String.class)
                .map(key::equals)
                .orElse(false)) {
            return;
        }
        if (fired.getAndIncrement() < times) {
            action.run();
        }
    }

    int fired() {
        return Math.min(fired.get(), times);
    }
}
