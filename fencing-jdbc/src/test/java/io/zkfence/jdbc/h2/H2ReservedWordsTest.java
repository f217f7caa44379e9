package io.zkfence.jdbc.h2;

import io.zkfence.jdbc.contract.ReservedWordsContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class H2ReservedWordsTest extends ReservedWordsContract {

    @Override
    protected Engine engine() {
        return Engines.h2();
    }
}
