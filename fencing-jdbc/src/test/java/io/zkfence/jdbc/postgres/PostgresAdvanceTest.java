package io.zkfence.jdbc.postgres;

import io.zkfence.jdbc.contract.AdvanceContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class PostgresAdvanceTest extends AdvanceContract {

    @Override
    protected Engine engine() {
        return Engines.postgres();
    }
}
