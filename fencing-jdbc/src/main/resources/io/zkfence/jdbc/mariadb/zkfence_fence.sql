-- zkfence fence table for MariaDB (InnoDB): one row per protected resource key, holding the
-- highest fencing token accepted for it. Usable as a Flyway/Liquibase migration as it is; with
-- other names, rename the table and columns here and in FenceConfig alike.
-- The key uses a binary no-pad collation: 'Sku-1', 'sku-1' and 'sku-1 ' are three resources.
-- updated_at holds UTC.
CREATE TABLE IF NOT EXISTS zkfence_fence (
    resource_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    fence_token  BIGINT       NOT NULL,
    holder       VARCHAR(255),
    updated_at   DATETIME(6)  NOT NULL DEFAULT UTC_TIMESTAMP(6),
    PRIMARY KEY (resource_key),
    CHECK (fence_token > 0)
) ENGINE = InnoDB;
