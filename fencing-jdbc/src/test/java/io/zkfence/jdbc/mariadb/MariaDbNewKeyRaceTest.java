package io.zkfence.jdbc.mariadb;

import io.zkfence.jdbc.contract.NewKeyRaceContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class MariaDbNewKeyRaceTest extends NewKeyRaceContract {

    @Override
    protected Engine engine() {
        return Engines.mariaDb();
    }
}
