package io.zkfence.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.jute.Record;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.ByteBufferInputStream;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.TxnLog;
import org.apache.zookeeper.txn.CheckVersionTxn;
import org.apache.zookeeper.txn.CreateContainerTxn;
import org.apache.zookeeper.txn.CreateTTLTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.DeleteTxn;
import org.apache.zookeeper.txn.ErrorTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.SetDataTxn;
import org.apache.zookeeper.txn.Txn;

/**
 * What ZooKeeper wrote between two zxids, read back from a server's transaction log: each
 * transaction counted by its type and the shape of its path ({@link #shape}), so that a window's
 * "ZooKeeper writes/s" says which writes they were. A multi is one transaction (one zxid), counted
 * as {@code multi}; its operations are counted besides, as {@code multi> <type> <shape>}, and are
 * not transactions of their own. A failed write still takes a zxid: it is logged as
 * {@code error <code>} (the log keeps no path for it), a multi refused whole as
 * {@code multi failed <code>} (its operations, which wrote nothing, not counted).
 */
final class TxnCensus {

    private static final Pattern DIGITS = Pattern.compile("\\d+$");
    private static final Pattern NAME_HEAD = Pattern.compile("^([A-Za-z_]{1,3}-?).*");

    private final File logDir;
    private final String root;

    /**
     * @param dataDir a server's data directory (its transaction log is in {@code version-2})
     * @param root the lock service's root znode, whose paths are shaped by what they are
     */
    TxnCensus(String dataDir, String root) {
        this.logDir = new File(dataDir, "version-2");
        this.root = root;
    }

    /**
     * Counts the transactions after {@code fromZxid} up to {@code toZxid} (inclusive), by kind,
     * the kinds with the most first.
     */
    Map<String, Long> count(long fromZxid, long toZxid) {
        Map<String, Long> counts = new TreeMap<>();
        try (FileTxnLog log = new FileTxnLog(logDir);
                TxnLog.TxnIterator it = log.read(fromZxid + 1)) {
            boolean more = it.getHeader() != null;
            while (more && it.getHeader().getZxid() <= toZxid) {
                if (it.getHeader().getZxid() > fromZxid) {
                    tally(counts, "", it.getHeader().getType(), it.getTxn());
                }
                more = it.next();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the transaction log in " + logDir, e);
        }
        Map<String, Long> sorted = new LinkedHashMap<>();
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    private void tally(Map<String, Long> counts, String within, int type, Record txn) throws IOException {
        if (txn instanceof MultiTxn multi) {
            String failed = failure(multi);
            if (failed != null) {
                // Refused whole: it wrote nothing, but took a zxid (and a log write on every server).
                counts.merge(within + "multi failed " + failed, 1L, Long::sum);
                return;
            }
            counts.merge(within + "multi", 1L, Long::sum);
            for (Txn op : multi.getTxns()) {
                tally(counts, "multi> ", op.getType(), subTxn(op));
            }
            return;
        }
        String kind = txn instanceof ErrorTxn error ? "error " + errorName(error.getErr()) : Request.op2String(type);
        String path = path(txn);
        counts.merge(within + kind + (path == null ? "" : " " + shape(path)), 1L, Long::sum);
    }

    /**
     * Why a multi was refused, null if it was not: the error of the op that failed it (the ops after
     * it are logged as {@code RUNTIMEINCONSISTENCY}, those before it as they were).
     */
    private static String failure(MultiTxn multi) throws IOException {
        String failed = null;
        for (Txn op : multi.getTxns()) {
            if (op.getType() == OpCode.error && subTxn(op) instanceof ErrorTxn error) {
                int code = error.getErr();
                if (code != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return errorName(code);
                }
                failed = errorName(code);
            }
        }
        return failed;
    }

    /** ZooKeeper's name of an error code, or the number if this client knows no name for it. */
    private static String errorName(int code) {
        for (KeeperException.Code c : KeeperException.Code.values()) {
            if (c.intValue() == code) {
                return c.name();
            }
        }
        return Integer.toString(code);
    }

    /** An operation of a multi, read from its bytes (null for a type without a path). */
    private static Record subTxn(Txn op) throws IOException {
        Record r = switch (op.getType()) {
            case OpCode.create, OpCode.create2 -> new CreateTxn();
            case OpCode.createTTL -> new CreateTTLTxn();
            case OpCode.createContainer -> new CreateContainerTxn();
            case OpCode.delete, OpCode.deleteContainer -> new DeleteTxn();
            case OpCode.setData -> new SetDataTxn();
            case OpCode.check -> new CheckVersionTxn();
            case OpCode.error -> new ErrorTxn();
            default -> null;
        };
        if (r != null) {
            ByteBufferInputStream.byteBuffer2Record(ByteBuffer.wrap(op.getData()), r);
        }
        return r;
    }

    private static String path(Record txn) {
        return switch (txn) {
            case CreateTxn c -> c.getPath();
            case CreateTTLTxn c -> c.getPath();
            case CreateContainerTxn c -> c.getPath();
            case DeleteTxn d -> d.getPath();
            case SetDataTxn s -> s.getPath();
            case CheckVersionTxn c -> c.getPath();
            case null, default -> null;
        };
    }

    /**
     * A path with what varies masked: under the service's root, the namespace (or the service's own
     * {@code _done}, {@code _replicas}, ...) kept, a lock's znode kept but for its trailing number
     * (so {@code scale:B1000-17} shows as {@code B1000-*}), an entry's name cut to its kind
     * ({@code e-*}, {@code r-*}); everything under the service's own znodes masked. Elsewhere, the
     * first two names.
     */
    String shape(String path) {
        if (!path.startsWith(root + "/")) {
            List<String> names = List.of(path.substring(1).split("/"));
            return "/" + String.join("/", names.subList(0, Math.min(2, names.size()))) + (names.size() > 2 ? "/…" : "");
        }
        String[] names = path.substring(root.length() + 1).split("/");
        StringBuilder out = new StringBuilder("<root>");
        boolean internal = names[0].startsWith("_");
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            out.append('/');
            if (i == 0) {
                out.append(name);
            } else if (internal) {
                out.append('*');
            } else if (i == 1) {
                out.append(DIGITS.matcher(name).replaceFirst("*"));
            } else {
                out.append(NAME_HEAD.matcher(name).replaceFirst("$1*"));
            }
        }
        return out.toString();
    }
}
