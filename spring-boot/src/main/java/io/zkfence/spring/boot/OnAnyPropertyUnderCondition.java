package io.zkfence.spring.boot;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Backs {@link ConditionalOnAnyPropertyUnder}: binds the prefix as a map, so relaxed names (environment variables) count. */
final class OnAnyPropertyUnderCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes =
                metadata.getAnnotationAttributes(ConditionalOnAnyPropertyUnder.class.getName());
        String prefix = (String) attributes.get("value");
        boolean any = Binder.get(context.getEnvironment())
                .bind(prefix, Bindable.mapOf(String.class, Object.class))
                .map(m -> !m.isEmpty())
                .orElse(false);
        return any
                ? ConditionOutcome.match("a property under " + prefix + " is set")
                : ConditionOutcome.noMatch("no property under " + prefix + " is set");
    }
}
