package io.zkfence.testing;

import java.lang.reflect.Executable;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Checks on the shape of a module's public API, shared by the modules' PublicApiTests. */
public final class PublicApi {

    private PublicApi() {}

    /** The public methods and constructors of {@code types} that declare a checked exception, as {@code Type.method}. */
    public static List<String> declaringCheckedExceptions(List<Class<?>> types) {
        List<String> offenders = new ArrayList<>();
        for (Class<?> type : types) {
            Stream.<Executable>concat(Stream.of(type.getDeclaredMethods()), Stream.of(type.getDeclaredConstructors()))
                    .filter(m -> Modifier.isPublic(m.getModifiers()))
                    .filter(m ->
                            Stream.of(m.getExceptionTypes()).anyMatch(e -> !RuntimeException.class.isAssignableFrom(e)))
                    .forEach(m -> offenders.add(type.getSimpleName() + "." + m.getName()));
        }
        return offenders;
    }
}
