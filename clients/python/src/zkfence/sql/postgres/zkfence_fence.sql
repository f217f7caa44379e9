-- zkfence fence table for PostgreSQL: one row per protected resource key, holding the highest
-- fencing token accepted for it. Usable as a Flyway/Liquibase migration as it is; with other
-- names, rename the table and columns here and in FenceConfig alike.
CREATE TABLE IF NOT EXISTS zkfence_fence (
    resource_key VARCHAR(255)             NOT NULL,
    fence_token  BIGINT                   NOT NULL,
    holder       VARCHAR(255),
    updated_at   TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (resource_key),
    CHECK (fence_token > 0)
);
