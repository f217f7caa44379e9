package io.zkfence.jdbc.h2;

import io.zkfence.jdbc.contract.AdvanceContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class H2AdvanceTest extends AdvanceContract {

    @Override
    protected Engine engine() {
        return Engines.h2();
    }
}
