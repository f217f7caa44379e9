package io.zkfence.samples.inventory.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The inventory service: {@code POST /stock/{sku}/reservations?quantity=N} reserves stock under
 * the SKU's zkfence lock and writes through fencing-jdbc. Every replica points at the same
 * ZooKeeper ensemble ({@code zkfence.connect-string}) and the same database
 * ({@code spring.datasource.url}).
 */
@SpringBootApplication
public class InventoryApplication {

    public static void main(String[] args) {
        SpringApplication.run(InventoryApplication.class, args);
    }
}
