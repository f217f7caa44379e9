package io.zkfence.bench;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What a process on this machine uses, read from outside it: CPU time and resident memory from
 * {@code /proc} (any process: a replica, etcd), and for a JVM its heap and Java threads through JMX,
 * reached with the JDK's attach API (the replica needs no flag for it, as {@code jcmd} needs none).
 */
final class ProcessProbe implements AutoCloseable {

    /** Linux's clock ticks per second for /proc's CPU times (USER_HZ, 100 on every Linux ABI). */
    private static final long TICKS_PER_SECOND = 100;

    /** A JVM's heap and threads. */
    record Jvm(long heapUsedAfterGc, long heapCommitted, int threads, int peakThreads) {}

    private final long pid;
    private JMXConnector jmx;
    private MemoryMXBean memory;
    private ThreadMXBean threads;

    ProcessProbe(long pid) {
        this.pid = pid;
    }

    long pid() {
        return pid;
    }

    /** User + system CPU time the process has used so far, ns. */
    long cpuNanos() {
        String stat = read("stat");
        // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
        return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    }

    /** Resident memory now, bytes. */
    long rssBytes() {
        return statusField("VmRSS:") * 1024;
    }

    /** The kernel's count of the process's threads (a JVM's own GC and compiler threads included). */
    int osThreads() {
        return (int) statusField("Threads:");
    }

    /** For a JVM: a full GC (so the heap figure is what is live), then its heap and threads. */
    Jvm jvm() {
        try {
            connect();
            memory.gc();
            MemoryUsage heap = memory.getHeapMemoryUsage();
            return new Jvm(heap.getUsed(), heap.getCommitted(), threads.getThreadCount(), threads.getPeakThreadCount());
        } catch (IOException e) {
            throw new UncheckedIOException("JMX of process " + pid + " failed", e);
        }
    }

    private void connect() throws IOException {
        if (jmx != null) {
            return;
        }
        String address;
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
        } catch (AttachNotSupportedException e) {
            throw new IllegalStateException("cannot attach to JVM " + pid + ": " + e.getMessage(), e);
        }
        jmx = JMXConnectorFactory.connect(new JMXServiceURL(address));
        MBeanServerConnection server = jmx.getMBeanServerConnection();
        memory = ManagementFactory.newPlatformMXBeanProxy(
                server, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
        threads = ManagementFactory.newPlatformMXBeanProxy(
                server, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
    }

    private long statusField(String name) {
        for (String line : read("status").split("\n")) {
            if (line.startsWith(name)) {
                List<String> parts =
                        List.of(line.substring(name.length()).trim().split("\\s+"));
                return Long.parseLong(parts.getFirst());
            }
        }
        throw new IllegalStateException("/proc/" + pid + "/status has no " + name);
    }

    private String read(String file) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/" + pid + "/" + file + " (has it exited?)", e);
        }
    }

    @Override
    public void close() {
        if (jmx != null) {
            try {
                jmx.close();
            } catch (IOException e) {
                // The process may have gone first; nothing to close then.
            }
        }
    }
}
