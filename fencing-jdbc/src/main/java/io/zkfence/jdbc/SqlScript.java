package io.zkfence.jdbc;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SQL script shipped with a dialect (the DDL, the fence statements), made ready for one
 * configuration. Scripts are written with the default names of {@link FenceConfig}; the configured
 * names (validated as plain, non-reserved identifiers) replace them word by word. Comment lines
 * ({@code --}) are dropped.
 */
final class SqlScript {

    private static final Pattern DEFAULT_NAMES = Pattern.compile("\\b("
            + String.join(
                    "|",
                    FenceConfig.DEFAULT_TABLE,
                    FenceConfig.DEFAULT_KEY_COLUMN,
                    FenceConfig.DEFAULT_TOKEN_COLUMN,
                    FenceConfig.DEFAULT_HOLDER_COLUMN,
                    FenceConfig.DEFAULT_UPDATED_AT_COLUMN)
            + ")\\b");

    private SqlScript() {}

    /** The script's code without comment lines, with the configured names. */
    static String code(FenceConfig config, String script) {
        StringBuilder code = new StringBuilder();
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        Map<String, String> names = Map.of(
                FenceConfig.DEFAULT_TABLE, config.qualifiedTable(),
                FenceConfig.DEFAULT_KEY_COLUMN, config.keyColumn(),
                FenceConfig.DEFAULT_TOKEN_COLUMN, config.tokenColumn(),
                FenceConfig.DEFAULT_HOLDER_COLUMN, config.holderColumn(),
                FenceConfig.DEFAULT_UPDATED_AT_COLUMN, config.updatedAtColumn());
        Matcher m = DEFAULT_NAMES.matcher(code);
        StringBuilder renamed = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(renamed, Matcher.quoteReplacement(names.get(m.group(1))));
        }
        m.appendTail(renamed);
        return renamed.toString();
    }
}
