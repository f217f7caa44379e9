package io.zkfence.bench;

/**
 * What one workload contributes to the report: a heading and Markdown (tables, the plot's image
 * link, notes).
 */
record Section(String title, String markdown) {}
