package io.zkfence.spring.boot;

import io.zkfence.lock.LockClient;
import java.lang.reflect.Method;
import java.util.Map;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@link FencedLockedInterceptor} to the beans with {@link FencedLocked} methods. A plain
 * Spring AOP advisor: any auto-proxy creator applies it, no AspectJ weaving. Each bean class is
 * checked once, when the proxy creator first asks about it, so a bad annotation fails start-up.
 */
final class FencedLockedAdvisor extends AbstractPointcutAdvisor {

    /** Outside {@code @Transactional} (whose default order is the lowest precedence). */
    static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private final transient Pointcut pointcut;
    private final transient FencedLockedInterceptor interceptor;

    FencedLockedAdvisor(ObjectProvider<LockClient> locks, BeanFactory beanFactory) {
        FencedLockedMethods methods = new FencedLockedMethods(beanFactory);
        this.interceptor = new FencedLockedInterceptor(methods, locks);
        StaticMethodMatcherPointcut matcher = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return methods.find(method, targetClass).isPresent();
            }
        };
        matcher.setClassFilter(type -> {
            Map<Method, FencedLocked> annotated = methods.annotatedMethods(type);
            if (annotated.isEmpty()) {
                return false;
            }
            if (locks.getIfAvailable() == null) {
                throw FencedLockedInterceptor.noClient(FencedLockedMethods.describe(
                        annotated.keySet().iterator().next()));
            }
            return true;
        });
        this.pointcut = matcher;
        setOrder(ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
