package io.zkfence.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The running JDK's {@code keytool}, for tests that serve TLS with a self-signed certificate. */
public final class Keytool {

    private Keytool() {}

    /**
     * Writes a PKCS#12 key store holding a fresh key pair and its self-signed certificate for
     * {@code host} and 127.0.0.1, valid for two days.
     *
     * @param keyStore     the file to write
     * @param alias        the entry's alias
     * @param keyAlgorithm {@code "EC"} (P-256) or {@code "RSA"} (2048 bits)
     * @param host         the certificate's common name and DNS name
     * @param password     the store's password (PKCS#12 uses it for the key too)
     * @throws IllegalArgumentException if {@code keyAlgorithm} is neither
     * @throws IllegalStateException    if keytool fails (with its output)
     */
    public static void selfSigned(Path keyStore, String alias, String keyAlgorithm, String host, String password) {
        List<String> size = switch (keyAlgorithm) {
            case "EC" -> List.of("-groupname", "secp256r1");
            case "RSA" -> List.of("-keysize", "2048");
            default -> throw new IllegalArgumentException("keyAlgorithm must be EC or RSA, not '" + keyAlgorithm + "'");
        };
        List<String> args = new ArrayList<>(List.of("-genkeypair", "-alias", alias, "-keyalg", keyAlgorithm));
        args.addAll(size);
        args.addAll(List.of(
                "-dname",
                "CN=" + host,
                "-ext",
                "SAN=dns:" + host + ",ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                password));
        run(args.toArray(String[]::new));
    }

    /**
     * Runs keytool with {@code args} and {@code -noprompt}, and waits up to a minute.
     *
     * @throws IllegalStateException if it fails or does not end in time (with its output)
     */
    public static void run(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.add("-noprompt");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while keytool ran", e);
        }
    }
}
