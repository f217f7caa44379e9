package io.zkfence.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * fencing-s3's {@code FencedBucket} reached through its public API by reflection, so that builds
 * of it from different revisions (this checkout's, and earlier ones' jars with the fencing-api they
 * were built with) run side by side in one JVM against one S3Mock. Every build is driven through
 * this same class, so none pays a call cost the others do not.
 */
final class ReflectiveFencedBucket {

    /** The packages a build brings its own copy of: the adapter and the fencing API it was built with. */
    private static final List<String> OWN_PACKAGES = List.of("io.zkfence.s3.", "io.zkfence.fencing.");

    private final String label;
    private final Class<?> bucketClass;
    private final MethodHandle configOf;
    private final MethodHandle create;
    private final MethodHandle verify;
    private final MethodHandle put;

    private ReflectiveFencedBucket(String label, ClassLoader loader) {
        this.label = label;
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> config = loader.loadClass("io.zkfence.s3.S3FenceConfig");
            Class<?> bucket = loader.loadClass("io.zkfence.s3.FencedBucket");
            Class<?> write = loader.loadClass("io.zkfence.s3.FencedWrite");
            if (bucket.getClassLoader() != loader && loader instanceof OwnPackagesFirstLoader) {
                throw new IllegalStateException(
                        label + ": FencedBucket came from " + bucket.getClassLoader() + ", not from the given jars");
            }
            bucketClass = bucket;
            configOf = lookup.findStatic(config, "of", MethodType.methodType(config, String.class));
            create = lookup.findStatic(bucket, "create", MethodType.methodType(bucket, S3Client.class, config));
            verify = lookup.findVirtual(bucket, "verifyConditionalWrites", MethodType.methodType(void.class));
            put = lookup.findVirtual(
                    bucket, "put", MethodType.methodType(write, String.class, long.class, RequestBody.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "the fencing-s3 of '" + label + "' lacks the API this harness drives: " + e, e);
        }
    }

    /** The fencing-s3 on this JVM's class path. */
    static ReflectiveFencedBucket current() {
        return new ReflectiveFencedBucket("current", ReflectiveFencedBucket.class.getClassLoader());
    }

    /**
     * The fencing-s3 in {@code jars} (its jar and the fencing-api jar it was built with), loaded in a
     * class loader of its own that finds zkfence's classes in those jars first and everything else
     * (the AWS SDK, SLF4J) on this class path.
     */
    static ReflectiveFencedBucket fromJars(String label, List<Path> jars) {
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = jars.get(i).toUri().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("not a jar path: " + jars.get(i), e);
            }
        }
        return new ReflectiveFencedBucket(label, new OwnPackagesFirstLoader(urls));
    }

    String label() {
        return label;
    }

    /** The {@code FencedBucket} class this build's calls go to (for checking which build it is). */
    Class<?> bucketClass() {
        return bucketClass;
    }

    /** This build's fenced bucket {@code bucket} on {@code s3}, its self-check run. */
    Put open(S3Client s3, String bucket) {
        Object fenced;
        try {
            fenced = create.invoke(s3, configOf.invoke(bucket));
            verify.invoke(fenced);
        } catch (Throwable t) {
            throw new IllegalStateException(label + ": cannot open a FencedBucket on " + bucket + ": " + t, t);
        }
        return (key, token, body) -> {
            try {
                put.invoke(fenced, key, token, body);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(label + ": a put of " + key + " failed: " + t, t);
            }
        };
    }

    /** One build's {@code FencedBucket.put(key, token, body)}. */
    interface Put {
        void put(String key, long token, RequestBody body);
    }

    /** Child-first for zkfence's packages, parent-first for the rest. */
    private static final class OwnPackagesFirstLoader extends URLClassLoader {

        OwnPackagesFirstLoader(URL[] jars) {
            super(jars, ReflectiveFencedBucket.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (OWN_PACKAGES.stream().noneMatch(name::startsWith)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name); // never the class path's copy: that is another build
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
