package io.zkfence.samples.testing;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that, once {@link #hold() held}, makes callers of {@code getConnection()} wait
 * until {@link #release()}: a holder that has its lock and token but has not written yet stays
 * right there, like a thread in a long GC pause, while the test lets the world move on.
 */
public final class GatedDataSource implements DataSource {

    private final DataSource target;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final CountDownLatch waiting = new CountDownLatch(1);

    public GatedDataSource(DataSource target) {
        this.target = target;
    }

    public void hold() {
        gate = new CountDownLatch(1);
    }

    public void release() {
        gate.countDown();
    }

    /** Waits until a caller is held at the gate. */
    public void awaitHeld(long timeout, TimeUnit unit) throws InterruptedException {
        if (!waiting.await(timeout, unit)) {
            throw new IllegalStateException("nobody asked for a connection within " + timeout + " " + unit);
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        pass();
        return target.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        pass();
        return target.getConnection(username, password);
    }

    private void pass() throws SQLException {
        CountDownLatch g = gate;
        if (g.getCount() > 0) {
            waiting.countDown();
            try {
                g.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted at the gate", e);
            }
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return target.isWrapperFor(iface);
    }
}
