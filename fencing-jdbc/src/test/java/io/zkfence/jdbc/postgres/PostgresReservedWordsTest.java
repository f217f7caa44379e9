package io.zkfence.jdbc.postgres;

import io.zkfence.jdbc.contract.ReservedWordsContract;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;

class PostgresReservedWordsTest extends ReservedWordsContract {

    @Override
    protected Engine engine() {
        return Engines.postgres();
    }
}
