package io.zkfence.jdbc.mariadb;

import io.zkfence.jdbc.contract.TokenColumnContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class MariaDbTokenColumnTest extends TokenColumnContract {

    @Override
    protected Engine engine() {
        return Engines.mariaDb();
    }
}
