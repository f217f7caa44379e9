package io.zkfence.samples.inventory.service;

import io.zkfence.fencing.StaleTokenException;
import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.LockException;
import java.net.URI;
import java.util.Map;
import java.util.OptionalInt;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /stock/{sku}/reservations?quantity=N}: 201 with the reservation, 409 when there is
 * not enough stock, 404 for an unknown SKU, 503 (retry) when the lock could not be had in time or
 * was lost. {@code GET /stock/{sku}}: the units available.
 */
@RestController
public class InventoryController {

    private final ReservationService reservations;
    private final StockLedger ledger;

    public InventoryController(ReservationService reservations, StockLedger ledger) {
        this.reservations = reservations;
        this.ledger = ledger;
    }

    @PostMapping("/stock/{sku}/reservations")
    public ResponseEntity<?> reserve(@PathVariable("sku") String sku, @RequestParam("quantity") int quantity) {
        if (quantity < 1) {
            return ResponseEntity.badRequest().body(Map.of("error", "quantity must be at least 1, was " + quantity));
        }
        return reservations
                .reserve(sku, quantity)
                .<ResponseEntity<?>>map(
                        r -> ResponseEntity.created(URI.create("/stock/" + sku)).body(r))
                .orElseGet(() ->
                        ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", "not enough stock of " + sku)));
    }

    @GetMapping("/stock/{sku}")
    public ResponseEntity<?> stock(@PathVariable("sku") String sku) {
        OptionalInt available = ledger.available(sku);
        if (available.isEmpty()) {
            throw new UnknownSkuException(sku);
        }
        return ResponseEntity.ok(Map.of("sku", sku, "available", available.getAsInt()));
    }

    @ExceptionHandler(UnknownSkuException.class)
    ResponseEntity<Map<String, String>> unknown(UnknownSkuException e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", e.getMessage()));
    }

    /** Lock not had in time, or lost (lease, or a higher token already wrote): nothing was written; retry. */
    @ExceptionHandler({AcquireTimeoutException.class, LockException.class, StaleTokenException.class})
    ResponseEntity<Map<String, String>> retry(RuntimeException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header("Retry-After", "1")
                .body(Map.of("error", String.valueOf(e.getMessage())));
    }
}
