package io.zkfence.jdbc.h2;

import io.zkfence.jdbc.contract.TokenColumnContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class H2TokenColumnTest extends TokenColumnContract {

    @Override
    protected Engine engine() {
        return Engines.h2();
    }
}
