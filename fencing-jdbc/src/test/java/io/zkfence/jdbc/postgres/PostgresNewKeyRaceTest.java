package io.zkfence.jdbc.postgres;

import io.zkfence.jdbc.contract.NewKeyRaceContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class PostgresNewKeyRaceTest extends NewKeyRaceContract {

    @Override
    protected Engine engine() {
        return Engines.postgres();
    }
}
