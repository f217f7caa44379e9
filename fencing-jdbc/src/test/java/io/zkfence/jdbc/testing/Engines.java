package io.zkfence.jdbc.testing;

/**
 * One instance of each engine per JVM, started on first use and stopped when the JVM exits,
 * so that the test classes of an engine share its start-up cost.
 */
public final class Engines {

    private Engines() {}

    public static Engine postgres() {
        return PostgresHolder.ENGINE;
    }

    public static Engine mariaDb() {
        return MariaDbHolder.ENGINE;
    }

    public static Engine h2() {
        return H2Holder.ENGINE;
    }

    private static Engine stopAtExit(Engine engine) {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                engine.close();
                            } catch (Exception e) {
                                System.err.println("stopping " + engine + " failed: " + e);
                            }
                        },
                        "stop-" + engine.name()));
        return engine;
    }

    private static final class PostgresHolder {
        static final Engine ENGINE = stopAtExit(PostgresEngine.start());
    }

    private static final class MariaDbHolder {
        static final Engine ENGINE = stopAtExit(MariaDbEngine.start());
    }

    private static final class H2Holder {
        static final Engine ENGINE = stopAtExit(H2Engine.start());
    }
}
