package io.zkfence.samples.inventory.service;

/**
 * A granted reservation: what was reserved, under which fencing token, and the stock left.
 *
 * @param sku       the stock-keeping unit
 * @param quantity  units reserved
 * @param token     the fencing token the write carried
 * @param remaining units still available after it
 */
public record Reservation(String sku, int quantity, long token, int remaining) {}
