package io.zkfence.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/** Matches when at least one property under {@link #value()} (e.g. {@code zkfence.jdbc}) is set, in any relaxed form. */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Documented
@Conditional(OnAnyPropertyUnderCondition.class)
@interface ConditionalOnAnyPropertyUnder {

    /** The prefix, without a trailing dot. */
    String value();
}
