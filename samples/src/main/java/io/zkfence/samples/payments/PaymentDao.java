package io.zkfence.samples.payments;

import io.zkfence.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The data-access layer. Every method that writes takes the caller's fencing token as its last
 * parameter and runs the fence first, in the same transaction as its writes: the DAO does not
 * know about locks, only that a token lower than one it has seen must not write.
 */
public final class PaymentDao {

    private final JdbcFence fence;

    public PaymentDao(DataSource pool) {
        this.fence = JdbcFence.create(pool);
    }

    // snippet:record
    /**
     * Records the payment and adds it to its order, unless it is recorded already.
     *
     * @param token the fencing token of the caller's grant of lock {@code "payment:" + paymentId}
     * @return true if recorded now, false if it was recorded before
     * @throws io.zkfence.jdbc.JdbcStaleTokenException if a newer holder of the lock has written:
     *         nothing was written, and retrying with this token is rejected again
     */
    public boolean record(PaymentEvent payment, long token) {
        return fence.inTransaction("payment:" + payment.paymentId(), token, c -> {
            if (exists(c, payment.paymentId())) {
                return false;
            }
            write(
                    c,
                    "insert into payment (payment_id, order_id, amount, token) values (?, ?, ?, ?)",
                    payment.paymentId(),
                    payment.orderId(),
                    payment.amount(),
                    token);
            write(
                    c,
                    "update shop_order set amount_paid = amount_paid + ? where order_id = ?",
                    payment.amount(),
                    payment.orderId());
            return true;
        });
    }
    // end:record

    private static boolean exists(Connection c, String paymentId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select 1 from payment where payment_id = ?")) {
            ps.setString(1, paymentId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void write(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            ps.executeUpdate();
        }
    }
}
