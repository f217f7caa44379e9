package io.zkfence.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/** Facts about the machine and the software a run measured on. */
final class MachineInfo {

    private MachineInfo() {}

    static void capture(Map<String, Object> m) {
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("cpu", firstValue("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch")));
        m.put("memory_total", firstValue("/proc/meminfo", "MemTotal").orElse("unknown"));
        m.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                        + System.getProperty("os.arch") + ")" + osRelease());
        m.put(
                "jdk",
                System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
                        + System.getProperty("java.runtime.version"));
        m.put("jvm_args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        m.put("heap_max_mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        m.put("versions", versions());
    }

    /** The 1, 5 and 15 minute load averages from /proc/loadavg, or "unknown". */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return l < 0 ? "unknown" : String.valueOf(l);
        }
    }

    /** The file system type and device holding {@code dir} (from /proc/mounts), or "unknown". */
    static String fileSystemOf(String dir) {
        try {
            String best = "";
            String answer = "unknown";
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] f = line.split(" ");
                if (f.length > 2
                        && (dir.equals(f[1]) || dir.startsWith(f[1].endsWith("/") ? f[1] : f[1] + "/"))
                        && f[1].length() > best.length()) {
                    best = f[1];
                    answer = f[2] + " on " + f[0] + " (mounted at " + f[1] + ")";
                }
            }
            return answer;
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static Optional<String> firstValue(String file, String key) {
        try {
            List<String> lines = Files.readAllLines(Path.of(file));
            return lines.stream()
                    .filter(l -> l.startsWith(key))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String osRelease() {
        try {
            return Files.readAllLines(Path.of("/etc/os-release")).stream()
                    .filter(l -> l.startsWith("PRETTY_NAME="))
                    .map(l -> ", " + l.substring("PRETTY_NAME=".length()).replace("\"", ""))
                    .findFirst()
                    .orElse("");
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static Properties versions() {
        Properties p = new Properties();
        try (InputStream in = MachineInfo.class.getResourceAsStream("/bench-versions.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }
}
