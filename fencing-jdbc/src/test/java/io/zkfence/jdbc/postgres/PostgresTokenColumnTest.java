package io.zkfence.jdbc.postgres;

import io.zkfence.jdbc.contract.TokenColumnContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class PostgresTokenColumnTest extends TokenColumnContract {

    @Override
    protected Engine engine() {
        return Engines.postgres();
    }
}
