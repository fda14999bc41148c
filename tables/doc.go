// Package tables writes the tables of "reprobench analyze" and "reprobench
// compare" — text for people, CSV and JSON for programs, and the Go
// benchmark format for benchstat — from the results of package analysis,
// so that a program that imports the library prints the same tables as
// the command.
//
// Group summaries (analysis.Analyze, one row per group of observations,
// Hunold & Carpen-Amarie 2016, Alg. 6): WriteSummaryText with the columns
// SelectColumns chooses, WriteSummaryCSV, WriteSummaryJSON and
// WriteBenchstat. Comparisons (analysis.CompareIgnoring,
// analysis.CompareBy): WriteComparisonText, WriteComparisonCSV and
// WriteComparisonJSON.
//
// The text tables scale times to one unit per row with at least three
// significant digits and keep to 120 columns; CSV and JSON carry every
// column, times unscaled in seconds (columns named _s), NaN as "NaN" in CSV
// and null in JSON.
package tables
