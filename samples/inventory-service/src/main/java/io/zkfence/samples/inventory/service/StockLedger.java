package io.zkfence.samples.inventory.service;

import io.zkfence.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.springframework.stereotype.Repository;

/**
 * The stock table, written only through the fence: each write carries a fencing token, and the
 * fence rejects it (StaleTokenException, nothing written) once a higher token has written for
 * the same SKU. It does not lock: {@link ReservationService} does.
 */
@Repository
public class StockLedger {

    private final JdbcFence fence;
    private final DataSource dataSource;

    public StockLedger(JdbcFence fence, DataSource dataSource) {
        this.fence = fence;
        this.dataSource = dataSource;
    }

    // snippet:ledger
    /** Reserves {@code quantity} if that much is available; empty when it is not. */
    public Optional<Reservation> reserve(String sku, int quantity, long token) {
        return fence.inTransaction(fenceKey(sku), token, connection -> {
            int available = available(connection, sku).orElseThrow(() -> new UnknownSkuException(sku));
            if (available < quantity) {
                return Optional.empty();
            }
            try (PreparedStatement update =
                            connection.prepareStatement("update stock set available = available - ? where sku = ?");
                    PreparedStatement insert = connection.prepareStatement(
                            "insert into reservation (sku, quantity, token) values (?, ?, ?)")) {
                update.setInt(1, quantity);
                update.setString(2, sku);
                update.executeUpdate();
                insert.setString(1, sku);
                insert.setInt(2, quantity);
                insert.setLong(3, token);
                insert.executeUpdate();
            }
            return Optional.of(new Reservation(sku, quantity, token, available - quantity));
        });
    }
    // end:ledger

    /** The units available, read outside any lock. */
    public OptionalInt available(String sku) {
        try (Connection connection = dataSource.getConnection()) {
            return available(connection, sku);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the stock of " + sku, e);
        }
    }

    /** The fence key of a SKU: the lock's name, so the fence and the lock speak of the same thing. */
    static String fenceKey(String sku) {
        return "inventory:sku:" + sku;
    }

    private static OptionalInt available(Connection connection, String sku) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("select available from stock where sku = ?")) {
            select.setString(1, sku);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? OptionalInt.of(rs.getInt(1)) : OptionalInt.empty();
            }
        }
    }
}
