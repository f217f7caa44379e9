package io.zkfence.samples.demo;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The S3 object of the demo: the stock of SKU 123 as JSON. The token is in the body too, so that
 * every write's bytes differ (see the ETag caveat in docs/fencing-s3.md) and a reader can see who
 * wrote it.
 */
record StockDocument(int stock, String lastOrder, String writtenBy, long token) {

    private static final Pattern JSON = Pattern.compile(
            "\\{\"sku\":\"[^\"]*\",\"stock\":(-?\\d+),\"lastOrder\":\"([^\"]*)\",\"writtenBy\":\"([^\"]*)\",\"token\":(\\d+)}");

    String toJson() {
        return "{\"sku\":\"" + Inventory.SKU + "\",\"stock\":" + stock + ",\"lastOrder\":\"" + lastOrder
                + "\",\"writtenBy\":\"" + writtenBy + "\",\"token\":" + token + "}";
    }

    static StockDocument parse(String json) {
        Matcher m = JSON.matcher(json.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a demo stock document: " + json);
        }
        return new StockDocument(Integer.parseInt(m.group(1)), m.group(2), m.group(3), Long.parseLong(m.group(4)));
    }
}
