package io.zkfence.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the dialect's shipped DDL script into the statements for a configuration. The script is
 * the single source of truth: it is written with the default names, and configured names
 * (already validated as plain identifiers) replace them word by word.
 */
final class Ddl {

    private static final Pattern DEFAULT_NAMES = Pattern.compile("\\b(" + String.join("|",
            FenceConfig.DEFAULT_TABLE, FenceConfig.DEFAULT_KEY_COLUMN, FenceConfig.DEFAULT_TOKEN_COLUMN,
            FenceConfig.DEFAULT_HOLDER_COLUMN, FenceConfig.DEFAULT_UPDATED_AT_COLUMN) + ")\\b");

    private Ddl() {
    }

    static List<String> statements(FenceConfig config) {
        Map<String, String> names = Map.of(
                FenceConfig.DEFAULT_TABLE, config.qualifiedTable(),
                FenceConfig.DEFAULT_KEY_COLUMN, config.keyColumn(),
                FenceConfig.DEFAULT_TOKEN_COLUMN, config.tokenColumn(),
                FenceConfig.DEFAULT_HOLDER_COLUMN, config.holderColumn(),
                FenceConfig.DEFAULT_UPDATED_AT_COLUMN, config.updatedAtColumn());
        StringBuilder code = new StringBuilder();
        for (String line : config.dialect().ddl().split("\n")) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        Matcher m = DEFAULT_NAMES.matcher(code);
        StringBuilder renamed = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(renamed, Matcher.quoteReplacement(names.get(m.group(1))));
        }
        m.appendTail(renamed);
        List<String> statements = new ArrayList<>();
        for (String s : renamed.toString().split(";")) {
            if (!s.isBlank()) {
                statements.add(s.strip());
            }
        }
        return statements;
    }
}
