package io.zkfence.campaigns;

/**
 * One committed write, as PostgreSQL recorded it in the fenced unit of work (the checker reads
 * these, not the workers' opinions).
 *
 * @param id         the row's serial id: commit order per resource (rows are inserted under the fence row lock)
 * @param resource   the resource
 * @param token      the token the write was accepted with
 * @param attempt    the worker's attempt id
 * @param valueAfter the counter after this write
 */
public record HistoryRow(long id, String resource, long token, String attempt, long valueAfter) {}
