package io.zkfence.jdbc.h2;

import io.zkfence.jdbc.contract.ConcurrencyContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class H2ConcurrencyTest extends ConcurrencyContract {

    @Override
    protected Engine engine() {
        return Engines.h2();
    }
}
