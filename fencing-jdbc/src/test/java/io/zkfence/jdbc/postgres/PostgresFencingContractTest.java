package io.zkfence.jdbc.postgres;

import io.zkfence.jdbc.contract.JdbcFencingContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class PostgresFencingContractTest extends JdbcFencingContract {

    @Override
    protected Engine engine() {
        return Engines.postgres();
    }
}
