package io.zkfence.jdbc.mariadb;

import io.zkfence.jdbc.contract.ConcurrencyContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class MariaDbConcurrencyTest extends ConcurrencyContract {

    @Override
    protected Engine engine() {
        return Engines.mariaDb();
    }
}
