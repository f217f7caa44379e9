package io.zkfence.jdbc.mariadb;

import io.zkfence.jdbc.contract.JdbcFencingContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class MariaDbFencingContractTest extends JdbcFencingContract {

    @Override
    protected Engine engine() {
        return Engines.mariaDb();
    }
}
