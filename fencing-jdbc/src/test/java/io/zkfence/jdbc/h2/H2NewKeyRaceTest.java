package io.zkfence.jdbc.h2;

import io.zkfence.jdbc.contract.NewKeyRaceContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class H2NewKeyRaceTest extends NewKeyRaceContract {

    @Override
    protected Engine engine() {
        return Engines.h2();
    }
}
