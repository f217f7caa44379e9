package io.zkfence.samples.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's business data: the stock of SKU 123 and the reservations made against it, kept
 * twice. The {@link Copy#FENCED fenced} copy is only written through fencing-jdbc and
 * fencing-s3; the {@link Copy#UNFENCED unfenced} copy gets the very same writes without any
 * token check, to show what fencing prevents.
 */
final class Inventory {

    static final String SKU = "123";
    static final String LOCK = "inventory:sku:" + SKU;
    static final int INITIAL_STOCK = 10;
    /** The demo's own fence table, so the demo never touches an application's {@code zkfence_fence}. */
    static final String FENCE_TABLE = "zkfence_demo_fence";

    /** Where one copy of the data lives: two tables and one S3 object. */
    enum Copy {
        FENCED("zkfence_demo_stock", "zkfence_demo_reservation", "zkfence-demo/fenced/inventory/sku-123.json"),
        UNFENCED(
                "zkfence_demo_stock_unfenced",
                "zkfence_demo_reservation_unfenced",
                "zkfence-demo/unfenced/inventory/sku-123.json");

        final String stockTable;
        final String reservationTable;
        final String objectKey;

        Copy(String stockTable, String reservationTable, String objectKey) {
            this.stockTable = stockTable;
            this.reservationTable = reservationTable;
            this.objectKey = objectKey;
        }

        String label() {
            return name().toLowerCase();
        }
    }

    /** A row of a stock table. */
    record Stock(int quantity, String lastOrder, String writtenBy, Long token) {}

    /** A row of a reservation table. */
    record Reservation(String orderId, int quantity, String pod, long token) {}

    private Inventory() {}

    /** Drops and re-creates the demo's tables (never the fence table: that is fencing-jdbc's). */
    static void reset(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (Copy copy : Copy.values()) {
                s.execute("drop table if exists " + copy.reservationTable);
                s.execute("drop table if exists " + copy.stockTable);
                s.execute("create table " + copy.stockTable + " (sku varchar(64) primary key,"
                        + " quantity int not null, last_order varchar(64), written_by varchar(64), token bigint)");
                s.execute("create table " + copy.reservationTable + " (order_id varchar(64) primary key,"
                        + " sku varchar(64) not null, quantity int not null, pod varchar(64) not null,"
                        + " token bigint not null)");
                s.execute("insert into " + copy.stockTable + " (sku, quantity) values ('" + SKU + "', " + INITIAL_STOCK
                        + ")");
            }
        }
    }

    static Stock stock(Connection c, Copy copy) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "select quantity, last_order, written_by, token from " + copy.stockTable + " where sku = ?")) {
            ps.setString(1, SKU);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no stock row for sku " + SKU + " in " + copy.stockTable);
                }
                long token = rs.getLong(4);
                return new Stock(rs.getInt(1), rs.getString(2), rs.getString(3), rs.wasNull() ? null : token);
            }
        }
    }

    static List<Reservation> reservations(Connection c, Copy copy) throws SQLException {
        List<Reservation> result = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select order_id, quantity, pod, token from " + copy.reservationTable
                        + " order by token, order_id")) {
            while (rs.next()) {
                result.add(new Reservation(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getLong(4)));
            }
        }
        return result;
    }

    /**
     * The business writes of one reservation, on the caller's connection and transaction:
     * record the order and set the stock to the value the caller computed.
     */
    static void reserve(Connection c, Copy copy, String orderId, int quantity, int newStock, String pod, long token)
            throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("insert into " + copy.reservationTable
                        + " (order_id, sku, quantity, pod, token) values (?, ?, ?, ?, ?)");
                PreparedStatement update = c.prepareStatement("update " + copy.stockTable
                        + " set quantity = ?, last_order = ?, written_by = ?, token = ? where sku = ?")) {
            insert.setString(1, orderId);
            insert.setString(2, SKU);
            insert.setInt(3, quantity);
            insert.setString(4, pod);
            insert.setLong(5, token);
            insert.executeUpdate();
            update.setInt(1, newStock);
            update.setString(2, orderId);
            update.setString(3, pod);
            update.setLong(4, token);
            update.setString(5, SKU);
            update.executeUpdate();
        }
    }
}
