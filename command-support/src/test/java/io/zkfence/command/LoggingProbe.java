package io.zkfence.command;

import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * A command as zkfence's commands are built, with one subcommand: it prints its answer and logs,
 * as a library would, one line at each level under a name the configuration tunes, one under a
 * name it does not, and one through {@code java.util.logging} (as Tomcat does).
 */
@Command(name = "probe", mixinStandardHelpOptions = true, subcommands = LoggingProbe.Sub.class)
public final class LoggingProbe implements Callable<Integer> {

    public static void main(String[] args) {
        System.exit(CommandLogging.execute(() -> new CommandLine(new LoggingProbe()), args));
    }

    @Override
    public Integer call() {
        return speak("probe");
    }

    static int speak(String who) {
        for (String name : new String[] {"com.example.library", "org.apache.zookeeper.server.quorum.Learner"}) {
            Logger log = LoggerFactory.getLogger(name);
            log.debug("{}: debug from {}", who, name);
            log.info("{}: info from {}", who, name);
            log.warn("{}: warning from {}", who, name);
        }
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("org.example.jul");
        jul.fine(who + ": debug through java.util.logging");
        jul.info(who + ": info through java.util.logging");
        jul.warning(who + ": warning through java.util.logging");
        System.out.println(who + ": the answer");
        return 0;
    }

    @Command(name = "sub")
    static final class Sub implements Callable<Integer> {
        @Override
        public Integer call() {
            return speak("sub");
        }
    }
}
