package io.zkfence.jdbc.mariadb;

import io.zkfence.jdbc.contract.SchemaAndInputContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class MariaDbSchemaAndInputTest extends SchemaAndInputContract {

    @Override
    protected Engine engine() {
        return Engines.mariaDb();
    }
}
