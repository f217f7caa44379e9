package io.zkfence.consumer;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public surface of every published jar, as staged, matches its checked API file
 * ({@code api/<artifact>.api} at the repository root): a change to a public type or member fails
 * the build unless the file changes with it, so every API change is a visible, reviewed diff.
 *
 * <p>A file lists each public type (with its supertypes) and its public and protected members,
 * as {@link Class#toGenericString()} and {@link Member}s render them, sorted; types in a package
 * named {@code internal} are not API and are left out. On a mismatch the
 * rendered surface is written to {@code target/api/<artifact>.api}: review the diff in the failure
 * message and copy that file over the checked one if the change is intended.
 */
class PublishedApiTest {

    @Test
    void everyPublishedJarMatchesItsCheckedApiFile() throws IOException {
        Path apiDir = Path.of(System.getProperty("zkfence.apiDir"));
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Path> jar : zkfenceJars().entrySet()) {
            String artifact = jar.getKey();
            String actual = render(jar.getValue());
            Path expectedFile = apiDir.resolve(artifact + ".api");
            Path actualFile = Path.of("target", "api", artifact + ".api").toAbsolutePath();
            if (!Files.isRegularFile(expectedFile)) {
                write(actualFile, actual);
                problems.add(artifact + ": no checked API file " + expectedFile + "; review " + actualFile
                        + " and copy it there");
                continue;
            }
            String expected = Files.readString(expectedFile);
            if (!expected.equals(actual)) {
                write(actualFile, actual);
                problems.add(artifact + ": the public API differs from " + expectedFile + " (copy " + actualFile
                        + " over it if intended)\n" + diff(expected, actual));
            }
        }
        if (!problems.isEmpty()) {
            fail(String.join("\n\n", problems));
        }
    }

    /**
     * No two public top-level types of the published jars share a simple name: an import, a
     * stack trace or a log line then names one type only (before 0.2.0 fencing-jdbc and
     * fencing-s3 each had a {@code FenceException} and a {@code StaleTokenException}).
     */
    /** A type's header line in a rendered surface: "public [modifiers] class|interface|... a.b.C ...". */
    private static final Pattern TYPE_HEADER =
            Pattern.compile("^public .*?(?:class|interface|enum|record|@interface) ([\\w.$]+)");

    @Test
    void noTwoPublishedTypesShareASimpleName() throws IOException {
        Map<String, List<String>> bySimpleName = new TreeMap<>();
        for (Path jar : zkfenceJars().values()) {
            for (String line : render(jar).lines().toList()) {
                Matcher m = TYPE_HEADER.matcher(line);
                if (m.find() && !m.group(1).contains("$")) {
                    String name = m.group(1);
                    bySimpleName.computeIfAbsent(name.substring(name.lastIndexOf('.') + 1), k -> new ArrayList<>()).add(name);
                }
            }
        }
        List<String> clashes = bySimpleName.values().stream().filter(names -> names.size() > 1).map(String::valueOf).toList();
        if (!clashes.isEmpty()) {
            fail("public types that share a simple name: " + clashes);
        }
    }

    /** The public surface of {@code jar}, one type per block, sorted. */
    static String render(Path jar) throws IOException {
        Map<String, List<String>> types = new TreeMap<>();
        ClassLoader loader = PublishedApiTest.class.getClassLoader();
        try (JarFile file = new JarFile(jar.toFile())) {
            List<String> names = file.stream().map(e -> e.getName())
                    .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class") && !n.endsWith("package-info.class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.')).toList();
            for (String name : names) {
                Class<?> type;
                try {
                    type = Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new IllegalStateException("cannot load " + name + " from " + jar + " (" + e + "): an optional"
                            + " dependency of that jar must be added to consumer-check/src/it/module-names/pom.xml", e);
                }
                if (isExported(type)) {
                    types.put(type.getName(), members(type));
                }
            }
        }
        StringBuilder out = new StringBuilder();
        types.forEach((name, lines) -> {
            out.append(lines.get(0)).append('\n');
            lines.stream().skip(1).forEach(l -> out.append("  ").append(l).append('\n'));
            out.append('\n');
        });
        return out.toString();
    }

    /** Public types outside a package named {@code internal} (docs/versioning.md: those are not API). */
    private static boolean isExported(Class<?> type) {
        if (("." + type.getPackageName() + ".").contains(".internal.")) {
            return false;
        }
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic()) {
                return false;
            }
        }
        return true;
    }

    private static List<String> members(Class<?> type) {
        List<String> lines = new ArrayList<>();
        StringBuilder header = new StringBuilder(type.toGenericString());
        Type superclass = type.getGenericSuperclass();
        if (superclass != null && superclass != Object.class && type.getSuperclass() != Enum.class
                && type.getSuperclass() != Record.class) {
            header.append(" extends ").append(superclass.getTypeName());
        }
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0) {
            header.append(type.isInterface() ? " extends " : " implements ")
                    .append(Arrays.stream(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
        }
        lines.add(header.toString());
        boolean subclassable = !Modifier.isFinal(type.getModifiers()) && !type.isEnum() && !type.isRecord();
        Set<String> body = new TreeSet<>();
        Stream.of(type.getDeclaredFields()).filter(f -> visible(f, subclassable)).forEach(f -> body.add(f.toGenericString()));
        Stream.of(type.getDeclaredConstructors()).filter(c -> visible(c, subclassable))
                .forEach(c -> body.add(c.toGenericString()));
        Stream.of(type.getDeclaredMethods()).filter(m -> visible(m, subclassable) && !m.isBridge())
                .forEach(m -> body.add(m.toGenericString()));
        lines.addAll(body);
        return lines;
    }

    private static boolean visible(Member m, boolean subclassable) {
        if (m.isSynthetic() || (m instanceof Method method && method.isBridge())) {
            return false;
        }
        int mod = m.getModifiers();
        return Modifier.isPublic(mod) || (subclassable && Modifier.isProtected(mod));
    }

    /** Lines only in the checked file (-) and only in the rendered surface (+). */
    private static String diff(String expected, String actual) {
        Set<String> was = new LinkedHashSet<>(expected.lines().toList());
        Set<String> is = new LinkedHashSet<>(actual.lines().toList());
        StringBuilder d = new StringBuilder();
        was.stream().filter(l -> !l.isBlank() && !is.contains(l)).forEach(l -> d.append("- ").append(l.strip()).append('\n'));
        is.stream().filter(l -> !l.isBlank() && !was.contains(l)).forEach(l -> d.append("+ ").append(l.strip()).append('\n'));
        return d.toString();
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    /** The zkfence jars on the test class path, by artifact id (the BOM resolves them). */
    private static Map<String, Path> zkfenceJars() {
        Map<String, Path> jars = new TreeMap<>();
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(p -> p.getFileName().toString().startsWith("zkfence-") && p.toString().endsWith(".jar"))
                .forEach(p -> jars.put(p.getParent().getParent().getFileName().toString(), p));
        return jars;
    }
}
