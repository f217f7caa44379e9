package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.testing.CommandRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the whole harness with tiny counts, in a JVM of its own as {@code ./bench} runs it, into a
 * temporary folder (never docs/) and checks that
 * every workload produced its figures, the JSON parses, the report names every target and links
 * plots that exist. No speed is asserted: speed targets live in the report.
 */
class SmokeRunTest {

    @TempDir
    Path out;

    @Test
    void smokeRunWritesReportJsonAndPlotsForEveryWorkload() throws IOException {
        // As ./bench runs it: a JVM of its own with the harness JVM's flags and no logging
        // configuration given; it prints its progress on standard output, and libraries no more than
        // their warnings on standard error.
        List<String> jvm = new ArrayList<>(HazelcastCp.jvmFlags());
        jvm.addAll(List.of("-Djava.awt.headless=true", "-Dorg.jooq.no-logo=true", "-Dorg.jooq.no-tips=true"));
        CommandRun run = CommandRun.of(Bench.class, jvm, Duration.ofMinutes(15), "--smoke", "--out", out.toString());

        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.out()).as("%s", run).isNotEmpty().allMatch(l -> l.startsWith("[bench "));
        assertThat(run.errAt("DEBUG")).as("%s", run).isEmpty();
        assertThat(run.errAt("INFO")).as("%s", run).isEmpty();
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(json.at("/run/mode").asText()).isEqualTo("smoke");
        assertThat(json.at("/machine/cores").asInt()).isPositive();
        assertThat(json.at("/machine/zookeeper_ensemble_size").asInt()).isEqualTo(3);
        assertThat(json.at("/machine/zookeeper_fsync").isBoolean()).isTrue();
        assertThat(json.at("/machine/load_average_before").asText()).isNotBlank();
        assertThat(json.at("/machine/load_average_after").asText()).isNotBlank();
        assertThat(json.at("/machine/versions/curator").asText()).isEqualTo("5.9.0");
        assertThat(json.at("/machine/versions/hazelcast").asText()).isEqualTo("5.4.0");
        assertThat(json.at("/machine/hazelcast_cp_members").asInt()).isEqualTo(3);

        JsonNode figures = json.get("figures");
        Settings smoke = Settings.smokeRun();
        List<String> expected = new ArrayList<>();
        for (String v : List.of("floor", "zkfence", "curator")) {
            expected.add("uncontended." + v + ".p50_us");
            expected.add("uncontended." + v + ".requests_per_cycle");
        }
        for (String v : List.of("zkfence", "curator", "hazelcast")) {
            expected.add("contended." + v + ".grants_per_s");
            expected.add("contended." + v + ".acquire_wait.p99_us");
        }
        for (int w : smoke.handoffWaiters()) {
            expected.add("handoff.waiters_" + w + ".p50_us");
            expected.add("handoff.waiters_" + w + ".watch_events_per_release");
        }
        for (int held : smoke.heldLevels()) {
            expected.add("many_locks.held_" + held + ".acquire.p50_us");
            expected.add("many_locks.held_" + held + ".heap_bytes_per_held_lock");
        }
        for (String v : List.of(
                "plain_update",
                "token_column_update",
                "token_column_helper",
                "unit_without_fence",
                "unit_with_fence_row")) {
            expected.add("fencing_jdbc.durable." + v + ".p999_us");
        }
        for (String v : List.of("stale", "wait", "no_lock")) {
            expected.add("cache_rebuild." + v + ".p99_us");
            expected.add("cache_rebuild." + v + ".loader_calls_per_expiry.max");
        }
        for (String v : List.of("zkfence-cohort", "zkfence", "curator", "hazelcast")) {
            expected.add("hot-lock." + v + ".grants_per_s");
            expected.add("hot-lock." + v + ".worst_share_deviation");
            expected.add("hot-lock-processes." + v + ".grants_per_s");
            expected.add("hot-lock-processes." + v + ".worst_share_deviation");
            expected.add("hot-lock-processes." + v + ".acquire_wait.p99_us");
            expected.add("hot-lock-processes." + v + ".process_1.grants");
        }
        for (String layout : List.of("one_client", "four_clients")) {
            for (String v : List.of("floor", "zkfence", "curator")) {
                expected.add("aggregate." + layout + "." + v + ".cycles_per_s");
            }
        }
        for (int workers : List.of(1, 2)) {
            expected.add("file_processing.workers_" + workers + ".files_per_s");
            expected.add("file_processing.workers_" + workers + ".completions");
        }
        for (String shape : List.of("hot", "many")) {
            expected.add("server." + shape + ".http.grants_per_s");
            expected.add("server." + shape + ".lock_core.grants_per_s");
            expected.add("server." + shape + ".http.requests_per_grant");
        }
        for (String shape : List.of("hot", "many")) {
            expected.add("server." + shape + ".http.writes_per_grant");
        }
        for (String variant : List.of(
                "http",
                "http_rid",
                "http_wait",
                "http_jdk",
                "service_wire",
                "service_wire_rid",
                "service_wire_wait",
                "lock_core")) {
            expected.add("server.uncontended." + variant + ".p50_us");
            expected.add("server.uncontended." + variant + ".requests_per_cycle");
            expected.add("server.uncontended." + variant + ".writes_per_cycle");
        }
        // A replica just started, without and with its warm-up (etcd's rows need etcd installed: not here).
        for (String cold : List.of("no_warm_up", "warm_up")) {
            expected.add("server.cold." + cold + ".ready_ms");
            expected.add("server.cold." + cold + ".first.p50_us");
            expected.add("server.cold." + cold + ".after_warm_up.p50_us");
        }
        expected.add("server.get_live.keep_alive.p50_us");
        expected.add("server.get_live.jdk.p50_us");
        expected.add("fencing_s3.plain_put.max_us");
        expected.add("fencing_s3.fenced_put.max_us");
        expected.add("fencing_redis.plain_set.p50_us");
        expected.add("fencing_redis.fenced_set.p50_us");
        expected.add("fencing_redis.fenced_set_trust_persistence.p50_us");
        expected.add("fencing_redis.ratio.fenced_vs_plain.p50");
        expected.add("fencing_azure_blob.plain_put.p50_us");
        expected.add("fencing_azure_blob.fenced_put.p50_us");
        expected.add("fencing_azure_blob.ratio.fenced_vs_plain.p50");
        for (String name : expected) {
            assertThat(figures.has(name)).as("figure %s", name).isTrue();
            assertThat(figures.get(name).isNumber())
                    .as("figure %s is a number", name)
                    .isTrue();
        }
        for (String p50 :
                List.of("uncontended.zkfence.p50_us", "handoff.waiters_1.p50_us", "fencing_s3.fenced_put.p50_us")) {
            assertThat(figures.get(p50).asDouble()).as(p50).isPositive();
        }
        // Correctness, not speed: the lock excluded, and each release woke exactly one waiter.
        assertThat(figures.get("contended.violations").asDouble()).isZero();
        assertThat(figures.get("contended.counter_lost_updates").asDouble()).isZero();
        assertThat(figures.get("hot-lock.violations").asDouble()).isZero();
        // Across processes: no overlap seen in the shared file, no update lost, and every grant checked.
        assertThat(figures.get("hot-lock-processes.violations").asDouble()).isZero();
        assertThat(figures.get("hot-lock-processes.lost_updates").asDouble()).isZero();
        assertThat(figures.get("hot-lock-processes.checked_grants").asDouble()).isPositive();
        for (int w : smoke.handoffWaiters()) {
            assertThat(figures.get("handoff.waiters_" + w + ".watch_events_per_release")
                            .asDouble())
                    .isEqualTo(1.0);
        }

        // One loader call per expiry with the recipe, across all the simulated pods' callers.
        assertThat(figures.get("cache_rebuild.stale.loader_calls_per_expiry.max")
                        .asDouble())
                .isEqualTo(1.0);
        assertThat(figures.get("cache_rebuild.wait.loader_calls_per_expiry.max").asDouble())
                .isEqualTo(1.0);
        // The lock service answered every call of its workload with a 200.
        assertThat(figures.get("server.errors").asDouble()).isZero();
        // Every file processed once and recorded once, whatever the number of workers.
        for (int workers : List.of(1, 2)) {
            assertThat(figures.get("file_processing.workers_" + workers + ".task_runs")
                            .asDouble())
                    .isEqualTo(FileProcessingBench.SMOKE_FILES);
            assertThat(figures.get("file_processing.workers_" + workers + ".completions")
                            .asDouble())
                    .isEqualTo(FileProcessingBench.SMOKE_FILES);
        }

        List<String> targetIds = new ArrayList<>();
        json.get("targets").forEach(t -> targetIds.add(t.get("id").asText()));
        assertThat(targetIds)
                .contains(
                        "uncontended_vs_floor",
                        "uncontended_vs_curator",
                        "contended_vs_curator",
                        "handoff_p50_flat",
                        "handoff_watch_events",
                        "many_locks_flat",
                        "jdbc_token_column_update",
                        "jdbc_fence_row_unit",
                        "s3_steady_put",
                        "cache_rebuild_stale_loader_calls",
                        "cache_rebuild_wait_loader_calls",
                        "hot_lock_cohort_vs_curator",
                        "hot_lock_cohort_vs_hazelcast",
                        "hot_lock_violations",
                        "hot_lock_plain_vs_curator",
                        "hot_lock_cohort_fairness",
                        "aggregate_one_client_vs_floor",
                        "aggregate_four_clients_vs_curator",
                        "file_processing_task_runs_per_file",
                        "file_processing_scaling",
                        "server_http_added_p50",
                        "server_http_rid_added_p50",
                        "server_http_wait_added_p50",
                        "server_http_requests",
                        "server_http_writes",
                        "server_hot_key_vs_lock_core",
                        "server_hot_key_requests",
                        "server_errors");
        json.get("targets")
                .forEach(t -> assertThat(t.get("measured").isNumber()).isTrue());

        String report = Files.readString(out.resolve("README.md"));
        assertThat(report).contains("Smoke run", "## Targets", "## Machine", "ZooKeeper fsync");
        Matcher images = Pattern.compile("!\\[[^]]*]\\(([^)]+\\.png)\\)").matcher(report);
        int plots = 0;
        while (images.find()) {
            Path png = out.resolve(images.group(1));
            assertThat(png).exists();
            assertThat(ImageIO.read(png.toFile()))
                    .as("%s is a readable PNG", png)
                    .isNotNull();
            plots++;
        }
        // One plot per workload of a full run (service-scale runs only when named: its own test below).
        assertThat(plots)
                .isEqualTo(Harness.all().stream().filter(w -> !w.optIn()).count());
        assertThat(figures.has("service_scale.ceiling.writes_per_s")).isFalse();
    }

    @Test
    void serviceScaleSmokeRunHoldsEveryLeaseRenewsThemAndGrantsEveryWaiter() throws IOException {
        CommandRun run = CommandRun.of(
                Bench.class,
                List.of("-Djava.awt.headless=true"),
                Duration.ofMinutes(5),
                "--smoke",
                "--only",
                ServiceScaleBench.NAME,
                "--out",
                out.toString());

        assertThat(run.exitCode()).as("%s", run).isZero();
        JsonNode figures = new ObjectMapper()
                .readTree(out.resolve("results.json").toFile())
                .get("figures");
        ScaleSettings smoke = ScaleSettings.smoke();
        int leases = smoke.levels().getFirst();
        for (String level : List.of("L" + leases, "L" + leases + "_waiters")) {
            String p = "service_scale." + level;
            assertThat(figures.get(p + ".held").asLong()).as(p).isEqualTo(leases);
            assertThat(figures.get(p + ".lost").asLong()).as(p).isZero();
            assertThat(figures.get(p + ".renew_errors").asLong()).as(p).isZero();
            assertThat(figures.get(p + ".renewals_per_s").asDouble()).as(p).isPositive();
            assertThat(figures.get(p + ".zk_writes_per_s").asDouble()).as(p).isPositive();
            assertThat(figures.get(p + ".snapshot_bytes").asLong()).as(p).isPositive();
            assertThat(figures.get(p + ".replica_0.java_threads").asLong())
                    .as(p)
                    .isPositive();
        }
        String batched = "service_scale.B" + leases;
        assertThat(figures.get(batched + ".held").asLong()).isEqualTo(leases);
        assertThat(figures.get(batched + ".lost").asLong()).isZero();
        assertThat(figures.get(batched + ".renew_errors").asLong()).isZero();
        assertThat(figures.get(batched + ".renewals_per_s").asDouble()).isPositive();
        assertThat(figures.get(batched + ".batch_calls_per_s").asDouble()).isPositive();
        int waiters = smoke.waiterKeys() * smoke.waitersPerKey();
        assertThat(figures.get("service_scale.waiters.waits_open").asLong()).isEqualTo(waiters);
        assertThat(figures.get("service_scale.waiters.drain.granted").asLong()).isEqualTo(waiters);
        assertThat(figures.get("service_scale.waiters.drain.failed").asLong()).isZero();
        assertThat(figures.get("service_scale.waiters.granted_early").asLong()).isZero();
        assertThat(figures.get("service_scale.ceiling.writes_per_s").asDouble()).isPositive();

        String report = Files.readString(out.resolve("README.md"));
        assertThat(report).contains("## 9c. The lock service at scale", "**Waiters.**", "**Batch renewal**");
        Matcher images = Pattern.compile("!\\[[^]]*]\\(([^)]+\\.png)\\)").matcher(report);
        int plots = 0;
        while (images.find()) {
            assertThat(ImageIO.read(out.resolve(images.group(1)).toFile())).isNotNull();
            plots++;
        }
        assertThat(plots).isEqualTo(3);
    }
}
