package io.zkfence.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;

/**
 * A lock-core reached through its public API by reflection, so that two builds of it (this
 * checkout's and an earlier revision's jar) run side by side in one JVM against one ensemble.
 * Both are driven through this same class, so neither pays a cost the other does not.
 */
final class ReflectiveLockCore {

    /** One lock of one client: a whole acquire, critical section, release. */
    interface Cycle {
        /** Acquires, runs {@code critical} while holding, releases; returns the grant's token. */
        long run(Runnable critical);
    }

    private final String label;
    private final Class<?> clientClass;
    private final MethodHandle builder;
    private final MethodHandle rootPath;
    private final MethodHandle ownerId;
    private final MethodHandle build;
    private final MethodHandle create;
    private final MethodHandle lock;
    private final MethodHandle withCohort;
    private final MethodHandle acquire;
    private final MethodHandle token;
    private final MethodHandle path;
    private final MethodHandle nodePath;
    private final MethodHandle release;
    private final MethodHandle stats;
    private final MethodHandle wakeUps;
    private final MethodHandle childrenReads;
    /** {@code LockStats.queueChecks()}, or null for a build without it. */
    private final MethodHandle queueChecks;

    private ReflectiveLockCore(String label, ClassLoader loader) {
        this.label = label;
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> config = loader.loadClass("io.zkfence.lock.LockClientConfig");
            Class<?> configBuilder = loader.loadClass("io.zkfence.lock.LockClientConfig$Builder");
            Class<?> client = loader.loadClass("io.zkfence.lock.LockClient");
            if (client.getClassLoader() != loader && loader instanceof LockCoreFirstLoader) {
                throw new IllegalStateException(
                        label + ": LockClient came from " + client.getClassLoader() + ", not from the given jar");
            }
            Class<?> fencedLock = loader.loadClass("io.zkfence.lock.FencedLock");
            Class<?> lease = loader.loadClass("io.zkfence.lock.Lease");
            clientClass = client;
            builder = lookup.findStatic(config, "builder", MethodType.methodType(configBuilder));
            rootPath =
                    lookup.findVirtual(configBuilder, "rootPath", MethodType.methodType(configBuilder, String.class));
            ownerId = lookup.findVirtual(configBuilder, "ownerId", MethodType.methodType(configBuilder, String.class));
            build = lookup.findVirtual(configBuilder, "build", MethodType.methodType(config));
            create = lookup.findStatic(client, "create", MethodType.methodType(client, CuratorFramework.class, config));
            lock = lookup.findVirtual(client, "lock", MethodType.methodType(fencedLock, String.class));
            withCohort = lookup.findVirtual(fencedLock, "withCohort", MethodType.methodType(fencedLock));
            acquire = lookup.findVirtual(fencedLock, "acquire", MethodType.methodType(lease));
            token = lookup.findVirtual(lease, "token", MethodType.methodType(long.class));
            path = lookup.findVirtual(fencedLock, "path", MethodType.methodType(String.class));
            nodePath = lookup.findVirtual(lease, "nodePath", MethodType.methodType(String.class));
            release = lookup.findVirtual(lease, "release", MethodType.methodType(void.class));
            Class<?> lockStats = loader.loadClass("io.zkfence.lock.LockStats");
            stats = lookup.findVirtual(client, "stats", MethodType.methodType(lockStats));
            wakeUps = lookup.findVirtual(lockStats, "wakeUps", MethodType.methodType(long.class));
            childrenReads = lookup.findVirtual(lockStats, "childrenReads", MethodType.methodType(long.class));
            queueChecks = optional(lookup, lockStats, "queueChecks");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "the lock-core of '" + label + "' lacks the API this harness drives: " + e, e);
        }
    }

    private static MethodHandle optional(MethodHandles.Lookup lookup, Class<?> type, String counter)
            throws IllegalAccessException {
        try {
            return lookup.findVirtual(type, counter, MethodType.methodType(long.class));
        } catch (NoSuchMethodException absent) {
            return null;
        }
    }

    /** The lock-core on this JVM's class path. */
    static ReflectiveLockCore current() {
        return new ReflectiveLockCore("current", ReflectiveLockCore.class.getClassLoader());
    }

    /**
     * The lock-core in {@code jar}, loaded in a class loader of its own that finds lock-core's
     * classes in the jar first and everything else (Curator, ZooKeeper, SLF4J) on this class path.
     */
    static ReflectiveLockCore fromJar(String label, Path jar) {
        // A directory of classes works too (its URL ends with a slash), which the tests use.
        try {
            return new ReflectiveLockCore(
                    label, new LockCoreFirstLoader(jar.toUri().toURL()));
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("not a jar path: " + jar, e);
        }
    }

    String label() {
        return label;
    }

    /** The {@code LockClient} class this build's calls go to (for checking which build it is). */
    Class<?> clientClass() {
        return clientClass;
    }

    /** A client on {@code session} (which the caller owns and closes), as an {@link AutoCloseable}. */
    AutoCloseable client(CuratorFramework session, String root, String owner) {
        try {
            Object b = builder.invoke();
            b = rootPath.invoke(b, root);
            b = ownerId.invoke(b, owner);
            return (AutoCloseable) create.invoke(session, build.invoke(b));
        } catch (Throwable t) {
            throw new IllegalStateException(label + ": cannot create a LockClient: " + t, t);
        }
    }

    /** {@code name}'s lock on {@code client} (from {@link #client}). */
    Cycle lock(AutoCloseable client, String name) {
        return cycle(fencedLock(client, name), name);
    }

    /** {@code name}'s lock on {@code client} in cohort mode, with its default batch. */
    Cycle cohortLock(AutoCloseable client, String name) {
        try {
            return cycle(withCohort.invoke(fencedLock(client, name)), name);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(label + ": cannot get lock " + name + " in cohort mode: " + t, t);
        }
    }

    private Object fencedLock(AutoCloseable client, String name) {
        try {
            return lock.invoke(client, name);
        } catch (Throwable t) {
            throw new IllegalStateException(label + ": cannot get lock " + name + ": " + t, t);
        }
    }

    private Cycle cycle(Object fencedLock, String name) {
        return critical -> {
            try (AutoCloseable held = (AutoCloseable) acquire.invoke(fencedLock)) {
                long t = (long) token.invoke(held);
                critical.run();
                return t;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(label + ": a cycle on " + name + " failed: " + t, t);
            }
        };
    }

    /** This build as {@link HandoffRing} drives it: the same calls, through this class, for every build. */
    HandoffRing.Build ring() {
        return (session, root, owner) -> {
            AutoCloseable client = client(session, root, owner);
            return new HandoffRing.Client() {
                @Override
                public HandoffRing.Lock lock(String name) {
                    Object lock = fencedLock(client, name);
                    return new HandoffRing.Lock() {
                        @Override
                        public HandoffRing.Held acquire() {
                            Object lease = call(acquire, lock, "acquire " + name);
                            return new HandoffRing.Held() {
                                @Override
                                public String nodePath() {
                                    return (String) call(nodePath, lease, "nodePath");
                                }

                                @Override
                                public void release() {
                                    call(release, lease, "release " + name);
                                }
                            };
                        }

                        @Override
                        public String path() {
                            return (String) call(path, lock, "path");
                        }
                    };
                }

                @Override
                public HandoffRing.Counters counters() {
                    Object s = call(stats, client, "stats");
                    return new HandoffRing.Counters(
                            (long) call(wakeUps, s, "wakeUps"),
                            (long) call(childrenReads, s, "childrenReads"),
                            queueChecks == null ? 0 : (long) call(queueChecks, s, "queueChecks"));
                }

                @Override
                public void close() {
                    try {
                        client.close();
                    } catch (Exception e) {
                        throw new IllegalStateException(label + ": closing a LockClient failed: " + e, e);
                    }
                }
            };
        };
    }

    /** Whether this build counts single-znode reads ({@code LockStats.queueChecks()}). */
    boolean countsQueueChecks() {
        return queueChecks != null;
    }

    private Object call(MethodHandle h, Object target, String what) {
        try {
            return h.invoke(target);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(label + ": " + what + " failed: " + t, t);
        }
    }

    /** Child-first for lock-core's package, parent-first for the rest. */
    private static final class LockCoreFirstLoader extends URLClassLoader {

        LockCoreFirstLoader(URL jar) {
            super(new URL[] {jar}, ReflectiveLockCore.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("io.zkfence.lock.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name); // never the class path's copy: that is the other build
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
