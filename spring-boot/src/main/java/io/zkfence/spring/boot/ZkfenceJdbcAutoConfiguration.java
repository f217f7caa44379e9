package io.zkfence.spring.boot;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link JdbcFence} over the application's {@link DataSource}, when fencing-jdbc is on the class
 * path and any {@code zkfence.jdbc.*} property is set. The fence table is created at start-up
 * only with {@code zkfence.jdbc.create-if-missing=true}.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
        })
@ConditionalOnBooleanProperty(name = "zkfence.enabled", matchIfMissing = true)
@ConditionalOnClass(JdbcFence.class)
@ConditionalOnBean(DataSource.class)
@ConditionalOnAnyPropertyUnder("zkfence.jdbc")
@EnableConfigurationProperties(ZkfenceProperties.class)
public class ZkfenceJdbcAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceJdbcAutoConfiguration() {}

    /**
     * The fence.
     *
     * @param dataSource the application's data source
     * @param properties the {@code zkfence.*} settings
     * @return the fence (its table created first if asked to)
     */
    @Bean
    @ConditionalOnMissingBean(JdbcFence.class)
    public JdbcFence zkfenceJdbcFence(DataSource dataSource, ZkfenceProperties properties) {
        ZkfenceProperties.Jdbc p = properties.getJdbc();
        FenceDialect dialect = p.getDialect() != null ? dialect(p.getDialect()) : detect(dataSource);
        FenceConfig.Builder b = FenceConfig.builder(dialect);
        set(dialect, b, "zkfence.jdbc.schema", p.getSchema(), x -> x.schema(p.getSchema()));
        set(dialect, b, "zkfence.jdbc.table", p.getTable(), x -> x.table(p.getTable()));
        set(dialect, b, "zkfence.jdbc.key-column", p.getKeyColumn(), x -> x.keyColumn(p.getKeyColumn()));
        set(dialect, b, "zkfence.jdbc.token-column", p.getTokenColumn(), x -> x.tokenColumn(p.getTokenColumn()));
        set(dialect, b, "zkfence.jdbc.holder-column", p.getHolderColumn(), x -> x.holderColumn(p.getHolderColumn()));
        set(
                dialect,
                b,
                "zkfence.jdbc.updated-at-column",
                p.getUpdatedAtColumn(),
                x -> x.updatedAtColumn(p.getUpdatedAtColumn()));
        set(dialect, b, "zkfence.jdbc.holder-label", p.getHolderLabel(), x -> x.holderLabel(p.getHolderLabel()));
        JdbcFence fence = JdbcFence.create(dataSource, b.build());
        if (p.isCreateIfMissing()) {
            fence.createIfMissing();
        }
        return fence;
    }

    /** Checks {@code value} alone against fencing-jdbc's rules (naming the property), then applies it. */
    private static void set(
            FenceDialect dialect,
            FenceConfig.Builder b,
            String property,
            String value,
            UnaryOperator<FenceConfig.Builder> apply) {
        if (value == null) {
            return;
        }
        PropertyCheck.check(
                property, value, () -> apply.apply(FenceConfig.builder(dialect)).build());
        apply.apply(b);
    }

    private static FenceDialect dialect(String name) {
        String wanted = name.strip().toUpperCase(Locale.ROOT);
        return Arrays.stream(FenceDialect.values())
                .filter(d -> d.name().equals(wanted))
                .findFirst()
                .orElseThrow(() -> PropertyCheck.invalid(
                        "zkfence.jdbc.dialect",
                        name,
                        "must be one of "
                                + Arrays.toString(FenceDialect.values()).toLowerCase(Locale.ROOT)));
    }

    private static FenceDialect detect(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return FenceDialect.detect(c);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot open a connection to detect the fence dialect (set zkfence.jdbc.dialect"
                            + " to skip detection): " + e.getMessage(),
                    e);
        }
    }
}
