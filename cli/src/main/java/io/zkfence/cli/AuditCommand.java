package io.zkfence.cli;

import io.zkfence.lock.ForcedRelease;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code zkfence audit}: the forced releases on record, oldest first. */
@Command(name = "audit", mixinStandardHelpOptions = true, description = "The forced releases on record, oldest first.")
final class AuditCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @ParentCommand
    ZkfenceCommand root;

    @Option(names = "--json", description = "One JSON array instead of lines")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (Connection.Opened c = root.connection.open()) {
            List<ForcedRelease> log = c.client().admin().auditLog();
            if (json) {
                out.println(Render.json(log.stream().map(Render::map).toList()));
            } else {
                log.forEach(r -> out.println(Render.line(r)));
            }
        }
        return ExitCodes.OK;
    }
}
