package io.zkfence.jdbc.postgres;

import io.zkfence.jdbc.contract.SchemaAndInputContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class PostgresSchemaAndInputTest extends SchemaAndInputContract {

    @Override
    protected Engine engine() {
        return Engines.postgres();
    }
}
