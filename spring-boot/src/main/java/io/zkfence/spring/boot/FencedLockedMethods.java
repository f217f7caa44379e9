package io.zkfence.spring.boot;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.ParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * The {@link FencedLocked} methods: each one's annotation read, checked and parsed once (at
 * start-up, when the bean is proxied), then its lock name evaluated on every call.
 */
final class FencedLockedMethods {

    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    private final BeanFactory beanFactory;
    private final Map<Method, Optional<Definition>> definitions = new ConcurrentHashMap<>();

    FencedLockedMethods(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /**
     * The annotated methods of {@code type}, each checked: the first bad annotation fails here
     * with a message naming its method.
     */
    Map<Method, FencedLocked> annotatedMethods(Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, FencedLocked.class)) {
            return Map.of();
        }
        Map<Method, FencedLocked> found =
                MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<FencedLocked>)
                        m -> AnnotatedElementUtils.findMergedAnnotation(m, FencedLocked.class));
        found.keySet().forEach(m -> find(m, type));
        return found;
    }

    /** The definition of {@code method} as called on a {@code targetClass} bean, if annotated. */
    Optional<Definition> find(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        return definitions.computeIfAbsent(specific, this::parse);
    }

    private Optional<Definition> parse(Method method) {
        FencedLocked annotation = AnnotatedElementUtils.findMergedAnnotation(method, FencedLocked.class);
        if (annotation == null) {
            return Optional.empty();
        }
        String where = describe(method);
        if (annotation.name().isBlank()) {
            throw new IllegalStateException(where + ": the lock name is empty");
        }
        Class<?> returned = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(returned)
                || Future.class.isAssignableFrom(returned)
                || ClassUtils.getAllInterfacesForClassAsSet(returned).stream()
                        .map(Class::getName)
                        .anyMatch("org.reactivestreams.Publisher"::equals)) {
            throw new IllegalStateException(where + ": returns " + returned.getName()
                    + ", whose work outlives the call; the lock would be released before it ends");
        }
        Expression name;
        try {
            name = PARSER.parseExpression(annotation.name(), ParserContext.TEMPLATE_EXPRESSION);
        } catch (ParseException e) {
            throw new IllegalStateException(
                    where + ": the lock name '" + annotation.name() + "' is not a valid SpEL template: "
                            + e.getMessage(),
                    e);
        }
        Duration waitFor = duration(where, "waitFor", annotation.waitFor(), true);
        Duration maxHold = duration(where, "maxHold", annotation.maxHold(), false);
        return Optional.of(new Definition(method, where, annotation.name(), name, waitFor, maxHold, beanFactory));
    }

    private Duration duration(String where, String attribute, String text, boolean zeroAllowed) {
        String value = text;
        if (beanFactory instanceof ConfigurableBeanFactory configurable) {
            try {
                value = configurable.resolveEmbeddedValue(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(where + ": " + attribute + " '" + text + "': " + e.getMessage(), e);
            }
        }
        if (value == null || value.isBlank()) {
            return null;
        }
        Duration d;
        try {
            d = DurationStyle.detectAndParse(value.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    where + ": " + attribute + " '" + value + "' is not a duration (e.g. 5s, 500ms, PT5S)", e);
        }
        if (d.isNegative() || (!zeroAllowed && d.isZero())) {
            throw new IllegalStateException(where + ": " + attribute + " must be "
                    + (zeroAllowed ? "0 or more" : "positive") + ", was " + value);
        }
        return d;
    }

    static String describe(Method method) {
        return "@FencedLocked on " + method.getDeclaringClass().getName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(",", "(", ")"));
    }

    /** One annotated method: where it is, its parsed lock name, its wait and max-hold (null: none). */
    record Definition(
            Method method,
            String where,
            String template,
            Expression name,
            Duration waitFor,
            Duration maxHold,
            BeanFactory beanFactory) {

        /** Evaluates the lock name against this call's arguments; the bean is the root object. */
        String lockName(Object target, Object[] args) {
            MethodBasedEvaluationContext context =
                    new MethodBasedEvaluationContext(target, method, args, PARAMETER_NAMES);
            if (beanFactory != null) {
                context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            }
            String value;
            try {
                value = name.getValue(context, String.class);
            } catch (EvaluationException e) {
                throw new IllegalStateException(
                        where + ": cannot evaluate the lock name '" + template + "': " + e.getMessage(), e);
            }
            if (value == null || value.isBlank()) {
                throw new IllegalStateException(where + ": the lock name '" + template + "' evaluated to "
                        + (value == null ? "null" : "'" + value + "'") + " for this call (are parameter names"
                        + " compiled in? use -parameters, or #p0)");
            }
            return value;
        }
    }
}
