package io.zkfence.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns the dialect's shipped DDL script into the statements for a configuration. The script is
 * the single source of truth: it is written with the default names, and configured names
 * replace them (see {@link SqlScript}).
 */
final class Ddl {

    private Ddl() {}

    static List<String> statements(FenceConfig config) {
        List<String> statements = new ArrayList<>();
        for (String s : SqlScript.code(config, config.dialect().ddl()).split(";")) {
            if (!s.isBlank()) {
                statements.add(s.strip());
            }
        }
        return statements;
    }
}
