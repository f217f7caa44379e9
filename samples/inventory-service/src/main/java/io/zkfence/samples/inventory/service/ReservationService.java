package io.zkfence.samples.inventory.service;

import io.zkfence.spring.boot.FencedLockContext;
import io.zkfence.spring.boot.FencedLocked;
import java.util.Optional;
import org.springframework.stereotype.Service;

/** Reserves stock, one reservation of a SKU at a time across every replica. */
@Service
public class ReservationService {

    private final StockLedger ledger;

    public ReservationService(StockLedger ledger) {
        this.ledger = ledger;
    }

    // snippet:reserve
    /**
     * Runs under the SKU's lock, waiting up to {@code inventory.lock-wait} for it; the write
     * carries the lock's token, so a replica that lost the lock mid-call cannot write any more.
     */
    @FencedLocked(name = "inventory:sku:#{#sku}", waitFor = "${inventory.lock-wait:5s}")
    public Optional<Reservation> reserve(String sku, int quantity) {
        FencedLockContext.currentLease().orElseThrow().checkValid();
        return ledger.reserve(sku, quantity, FencedLockContext.currentToken());
    }
    // end:reserve
}
