package io.zkfence.samples.payments;

/**
 * A payment provider's "payment succeeded" webhook. Providers deliver at least once, so the same
 * event can arrive twice, at two instances at the same moment.
 *
 * @param paymentId the provider's id of the payment, the same in every delivery
 * @param orderId   our order it pays
 * @param amount    in the smallest currency unit
 */
public record PaymentEvent(String paymentId, String orderId, long amount) {}
