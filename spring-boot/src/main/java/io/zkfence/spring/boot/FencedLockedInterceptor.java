package io.zkfence.spring.boot;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Runs a {@link FencedLocked} method under its lock: evaluates the name, acquires (waiting as
 * the annotation says), makes the lease current for {@link FencedLockContext}, calls the
 * method, and releases in {@code finally}.
 */
final class FencedLockedInterceptor implements MethodInterceptor {

    private final FencedLockedMethods methods;
    private final ObjectProvider<LockClient> locks;

    FencedLockedInterceptor(FencedLockedMethods methods, ObjectProvider<LockClient> locks) {
        this.methods = methods;
        this.locks = locks;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass =
                target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        FencedLockedMethods.Definition method =
                methods.find(invocation.getMethod(), targetClass).orElse(null);
        if (method == null) {
            return invocation.proceed();
        }
        String name = method.lockName(target, invocation.getArguments());
        FencedLock lock;
        try {
            lock = client(method).lock(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    method.where() + ": lock name '" + name + "' is invalid: " + e.getMessage(), e);
        }
        if (method.maxHold() != null) {
            lock = lock.withMaxHold(method.maxHold());
        }
        Lease lease = method.waitFor() == null ? lock.acquire() : lock.acquire(method.waitFor());
        FencedLockContext.enter(lease);
        try {
            return invocation.proceed();
        } finally {
            FencedLockContext.exit();
            lease.release();
        }
    }

    LockClient client(FencedLockedMethods.Definition method) {
        LockClient client = locks.getIfAvailable();
        if (client == null) {
            throw noClient(method.where());
        }
        return client;
    }

    static IllegalStateException noClient(String where) {
        return new IllegalStateException(where + " needs a zkfence LockClient bean, and there is none: set"
                + " zkfence.connect-string (and leave zkfence.enabled true) or declare a LockClient bean");
    }
}
