package io.zkfence.jdbc;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What one engine's errors mean to the fence, each kind of failure as the SQLSTATEs and vendor
 * codes that report it. Every {@link FenceDialect} holds one, written out in the constant, so an
 * engine's codes are read in one place; {@link SqlErrors} turns a match into the module's
 * exceptions. The codes were checked against the real servers in this module's tests.
 *
 * @param serialization   the transaction was aborted for a concurrent one (serialization
 *                        failure, deadlock, snapshot conflict): retryable
 * @param lockWaitTimeout a lock wait the database gave up on: retryable, the holder may be gone
 * @param missingTable    the fence table, or the schema it is in, does not exist
 * @param missingColumn   a configured column does not exist
 * @param duplicateKey    an INSERT hit an existing primary key
 * @param duplicateObject DDL found the object it creates already there (a concurrent creator)
 */
record EngineErrors(
        Codes serialization,
        Codes lockWaitTimeout,
        Codes missingTable,
        Codes missingColumn,
        Codes duplicateKey,
        Codes duplicateObject) {

    /** SQLSTATEs and vendor codes that report one kind of failure; either matching is enough. */
    record Codes(Set<String> sqlStates, Set<Integer> vendorCodes) {

        static Codes states(String... sqlStates) {
            return new Codes(Set.of(sqlStates), Set.of());
        }

        static Codes vendor(Integer... vendorCodes) {
            return new Codes(Set.of(), Set.of(vendorCodes));
        }

        Codes orVendor(Integer... vendorCodes) {
            return new Codes(sqlStates, Set.of(vendorCodes));
        }

        /** Whether this one exception (not its causes) reports this kind of failure. */
        boolean match(SQLException e) {
            return (e.getSQLState() != null && sqlStates.contains(e.getSQLState()))
                    || vendorCodes.contains(e.getErrorCode());
        }

        /** Whether any SQL exception in the chain (causes, next exceptions) reports it. */
        boolean matchAnywhere(SQLException e) {
            for (SQLException s : chain(e)) {
                if (match(s)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The SQL exceptions of a cause chain, with each one's next exception, at most 16. */
    private static List<SQLException> chain(SQLException e) {
        List<SQLException> all = new ArrayList<>();
        for (Throwable t = e; t != null && all.size() < 16; t = t.getCause()) {
            if (t instanceof SQLException s) {
                all.add(s);
                if (s.getNextException() != null && all.size() < 16) {
                    all.add(s.getNextException());
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return all;
    }
}
