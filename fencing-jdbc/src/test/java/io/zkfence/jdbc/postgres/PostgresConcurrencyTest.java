package io.zkfence.jdbc.postgres;

import io.zkfence.jdbc.contract.ConcurrencyContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class PostgresConcurrencyTest extends ConcurrencyContract {

    @Override
    protected Engine engine() {
        return Engines.postgres();
    }
}
