// Package factor is the table of experiment factors. The model: one row
// (a Factor) per factor that the raw data records, as package mpi's
// operation table has one row per call; a row gives the factor's column
// name, its flag and help, how its levels are parsed and formatted, which
// calls it applies to, whether it enters the analysis's group key, and how
// it reaches C. Design files, raw files, the flags and the analysis read
// the table.
package factor
