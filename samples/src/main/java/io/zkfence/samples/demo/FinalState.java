package io.zkfence.samples.demo;

import static io.zkfence.samples.demo.Inventory.Copy.FENCED;
import static io.zkfence.samples.demo.Inventory.Copy.UNFENCED;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.FencedObject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/** What each store holds once the pods are done, read by the demo itself after the story. */
record FinalState(
        Map<Inventory.Copy, Inventory.Stock> rows,
        Map<Inventory.Copy, List<Inventory.Reservation>> reservations,
        Map<Inventory.Copy, Optional<StockDocument>> objects,
        OptionalLong fencedObjectToken,
        OptionalLong fenceToken,
        Map<String, ExtraStores.Held> extras) {

    static FinalState read(DataSource pool, JdbcFence fence, FencedBucket bucket, ExtraStores.Open extra) {
        Map<Inventory.Copy, Inventory.Stock> rows = new EnumMap<>(Inventory.Copy.class);
        Map<Inventory.Copy, List<Inventory.Reservation>> reservations = new EnumMap<>(Inventory.Copy.class);
        Map<Inventory.Copy, Optional<StockDocument>> objects = new EnumMap<>(Inventory.Copy.class);
        try (Connection c = pool.getConnection()) {
            for (Inventory.Copy copy : Inventory.Copy.values()) {
                rows.put(copy, Inventory.stock(c, copy));
                reservations.put(copy, Inventory.reservations(c, copy));
            }
        } catch (SQLException e) {
            throw new StoryFailedException("cannot read the final state from PostgreSQL: " + e.getMessage(), e);
        }
        // FencedBucket.read works for the unfenced object too: it is a plain GET that also reports
        // the token metadata, which the unfenced object simply does not have.
        Optional<FencedObject> fenced = bucket.read(FENCED.objectKey);
        objects.put(FENCED, fenced.map(o -> StockDocument.parse(o.asUtf8String())));
        objects.put(UNFENCED, bucket.read(UNFENCED.objectKey).map(o -> StockDocument.parse(o.asUtf8String())));
        OptionalLong objectToken = fenced.map(FencedObject::token).orElse(OptionalLong.empty());
        return new FinalState(
                rows, reservations, objects, objectToken, fence.currentToken(Inventory.LOCK), extra.held());
    }

    /** Units reserved in a copy's reservation table. */
    int reserved(Inventory.Copy copy) {
        return reservations.get(copy).stream()
                .mapToInt(Inventory.Reservation::quantity)
                .sum();
    }

    /** True when a copy's stock equals the initial stock minus what its reservations took. */
    boolean consistent(Inventory.Copy copy) {
        return rows.get(copy).quantity() == Inventory.INITIAL_STOCK - reserved(copy);
    }

    void print(Timeline out) {
        out.text("");
        out.text(
                "What each store holds now (SKU " + Inventory.SKU + ", initial stock " + Inventory.INITIAL_STOCK + ")");
        String format = "  %-10s  %-8s  %5s  %-10s  %-10s  %-12s  %s";
        out.text(String.format(format, "store", "copy", "stock", "last order", "written by", "token", "notes"));
        for (Inventory.Copy copy : Inventory.Copy.values()) {
            Inventory.Stock s = rows.get(copy);
            String orders = reservations.get(copy).stream()
                    .map(r -> r.orderId() + ":" + r.quantity())
                    .collect(Collectors.joining(" "));
            int expected = Inventory.INITIAL_STOCK - reserved(copy);
            String note = "reservations " + (orders.isEmpty() ? "none" : orders) + "; " + Inventory.INITIAL_STOCK
                    + " - " + reserved(copy) + " = " + expected
                    + (consistent(copy)
                            ? ", consistent"
                            : " but the row says " + s.quantity() + ": an update was lost");
            out.text(String.format(
                    format,
                    "PostgreSQL",
                    copy.label(),
                    s.quantity(),
                    nullable(s.lastOrder()),
                    nullable(s.writtenBy()),
                    s.token() == null ? "-" : s.token().toString(),
                    note));
        }
        for (Inventory.Copy copy : Inventory.Copy.values()) {
            Optional<StockDocument> doc = objects.get(copy);
            String note = copy == FENCED
                    ? "token metadata " + (fencedObjectToken.isPresent() ? fencedObjectToken.getAsLong() : "none")
                    : "plain object, no token check";
            out.text(doc.map(d -> String.format(
                            format, "S3", copy.label(), d.stock(), d.lastOrder(), d.writtenBy(), d.token(), note))
                    .orElse(String.format(format, "S3", copy.label(), "-", "-", "-", "-", "no object")));
        }
        extras.forEach((store, held) -> {
            for (Inventory.Copy copy : Inventory.Copy.values()) {
                Optional<StockDocument> doc = copy == FENCED ? held.fenced() : held.unfenced();
                String note = copy == FENCED
                        ? "fence token "
                                + (held.token().isPresent() ? held.token().getAsLong() : "none")
                        : "plain write, no token check";
                String label = ExtraStores.label(store);
                out.text(doc.map(d -> String.format(
                                format, label, copy.label(), d.stock(), d.lastOrder(), d.writtenBy(), d.token(), note))
                        .orElse(String.format(format, label, copy.label(), "-", "-", "-", "-", "nothing written")));
            }
        });
        out.text("  fence table " + Inventory.FENCE_TABLE + ": highest token accepted for " + Inventory.LOCK + " = "
                + (fenceToken.isPresent() ? fenceToken.getAsLong() : "none"));
    }

    private static String nullable(String s) {
        return s == null ? "-" : s;
    }
}
