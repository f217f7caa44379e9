package io.zkfence.jdbc.h2;

import io.zkfence.jdbc.contract.JdbcFencingContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class H2FencingContractTest extends JdbcFencingContract {

    @Override
    protected Engine engine() {
        return Engines.h2();
    }
}
