package io.zkfence.jdbc.mariadb;

import io.zkfence.jdbc.contract.ReservedWordsContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class MariaDbReservedWordsTest extends ReservedWordsContract {

    @Override
    protected Engine engine() {
        return Engines.mariaDb();
    }
}
