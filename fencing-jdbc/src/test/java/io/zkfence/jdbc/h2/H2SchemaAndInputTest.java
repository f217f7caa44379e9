package io.zkfence.jdbc.h2;

import io.zkfence.jdbc.contract.SchemaAndInputContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class H2SchemaAndInputTest extends SchemaAndInputContract {

    @Override
    protected Engine engine() {
        return Engines.h2();
    }
}
