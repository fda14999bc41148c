// Package tune chooses a collective algorithm per (collective, message
// size, process count) from a campaign whose design factor is the
// algorithm, and writes the choice as a file the MPI library loads.
//
// The unit is the mpirun (Hunold, Carpen-Amarie & Träff 2014; Hunold &
// Carpen-Amarie 2016, §6.2): a Sample is one mpirun's median run time of
// one candidate in one cell, and every candidate is compared with the
// library's default on these per-mpirun medians, never on single
// observations. One mpirun of one candidate is one sample, so a
// difference between mpiruns (this machine flips between modes from one
// mpirun to the next) is not mistaken for a difference between
// algorithms: the test's error rate holds whatever the per-mpirun
// distribution, modes included.
//
// The pieces:
//
//   - Decide: per cell, each candidate against the default with the
//     regression gate's test (analysis.SlowdownTest: one-sided Wilcoxon
//     rank-sum of H0 "the default is at most 1+threshold times slower"),
//     Holm-corrected over a Family (the whole campaign by default), and
//     the Hodges-Lehmann time ratio with its interval. The default is
//     kept unless a candidate is faster by more than the threshold with
//     significance.
//   - Plan: how many mpiruns per candidate let the smallest attainable
//     p-value pass the corrected level, and the sentence that says so.
//   - WriteOpenMPIRules, WriteMPICHJSON, WriteDecisionsJSON: Open MPI's
//     coll_tuned dynamic rules file, MPICH's MPIR-level collective
//     selection JSON, and the sidecar that carries each decision's
//     interval and data source.
//   - ReadSamples: raw files (and their sidecars) to Samples, the
//     candidate read from a named column.
//   - SimulateFalseDecisions: the rate at which identical candidates
//     replace the default, over seeded synthetic campaigns.
//
// docs/tuning.md explains the method and how to use the files.
package tune
