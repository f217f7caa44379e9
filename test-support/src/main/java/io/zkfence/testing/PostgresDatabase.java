package io.zkfence.testing;

import javax.sql.DataSource;

/**
 * One database on a {@link PostgresServer}, reached as {@link PostgresServer#USER} with no password.
 *
 * @param name its name
 * @param jdbcUrl its JDBC URL
 * @param dataSource unpooled connections to it
 */
public record PostgresDatabase(String name, String jdbcUrl, DataSource dataSource) {}
