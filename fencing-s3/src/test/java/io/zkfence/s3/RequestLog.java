package io.zkfence.s3;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * SDK execution interceptor that records every HTTP request a client transmits (retries
 * included), as "Operation key", e.g. "PutObject orders/1". Lets tests count round trips.
 */
final class RequestLog implements ExecutionInterceptor {

    private final List<String> requests = new CopyOnWriteArrayList<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        String path = context.httpRequest().encodedPath();
        // path-style: /bucket/key
        int slash = path.indexOf('/', 1);
        String key = slash < 0 ? "" : path.substring(slash + 1);
        requests.add(key.isEmpty() ? operation : operation + " " + key);
    }

    List<String> requests() {
        return List.copyOf(requests);
    }

    void clear() {
        requests.clear();
    }
}
