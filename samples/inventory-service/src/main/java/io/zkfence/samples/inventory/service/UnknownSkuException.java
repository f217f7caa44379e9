package io.zkfence.samples.inventory.service;

/** The SKU has no stock row. */
public class UnknownSkuException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public UnknownSkuException(String sku) {
        super("unknown sku " + sku);
    }
}
