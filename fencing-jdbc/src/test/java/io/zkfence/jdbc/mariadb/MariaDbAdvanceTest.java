package io.zkfence.jdbc.mariadb;

import io.zkfence.jdbc.contract.AdvanceContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class MariaDbAdvanceTest extends AdvanceContract {

    @Override
    protected Engine engine() {
        return Engines.mariaDb();
    }
}
