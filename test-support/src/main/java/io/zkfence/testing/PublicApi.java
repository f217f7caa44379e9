package io.zkfence.testing;

import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/** Checks on the shape of a module's public API, shared by the modules' PublicApiTests. */
public final class PublicApi {

    private PublicApi() {}

    /**
     * The public top-level types of {@code anchor}'s package, as compiled beside it (the module's
     * classes folder or jar): a check over them covers a type added later without being told.
     */
    public static List<Class<?>> publicTypesOf(Class<?> anchor) {
        String folder = anchor.getPackageName().replace('.', '/');
        List<Class<?>> types = new ArrayList<>();
        try {
            Path location = Path.of(
                    anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            List<String> names;
            if (Files.isDirectory(location)) {
                try (Stream<Path> files = Files.list(location.resolve(folder))) {
                    names = files.map(f -> f.getFileName().toString()).toList();
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile())) {
                    names = jar.stream()
                            .map(JarEntry::getName)
                            .filter(n -> n.startsWith(folder + "/") && n.indexOf('/', folder.length() + 1) < 0)
                            .map(n -> n.substring(folder.length() + 1))
                            .toList();
                }
            }
            for (String name : names) {
                if (name.endsWith(".class") && !name.contains("$") && !name.equals("package-info.class")) {
                    Class<?> type = Class.forName(
                            anchor.getPackageName() + "." + name.substring(0, name.length() - ".class".length()),
                            false,
                            anchor.getClassLoader());
                    if (Modifier.isPublic(type.getModifiers())) {
                        types.add(type);
                    }
                }
            }
        } catch (IOException | URISyntaxException | ClassNotFoundException e) {
            throw new IllegalStateException("cannot list the types of " + anchor.getPackageName(), e);
        }
        return types;
    }

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
