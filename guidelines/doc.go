// Package guidelines finds where an MPI library is slower than itself.
//
// A library is self-consistent when no collective is slower than a simple
// composition of other collectives that does the same job (Hunold,
// Carpen-Amarie and Träff's performance guidelines), for example
// MPI_Allreduce(n) ≤ MPI_Reduce(n) + MPI_Bcast(n). A violation is a tuning
// bug or a bad algorithm choice at that size.
//
// Guidelines are data: a Guideline names its two sides by the call names
// of the engine and the raw data ("MPI_Allreduce", or a mock-up such as
// "Reduce+Bcast", which package mpi executes as one observation in its C
// critical path) and says how each side's message size follows from the
// guideline's size n (n, p*n, one element, or 0). Default returns the
// issue's eleven; ReadTable reads more from a text table, one line each:
//
//	allgather-alltoall  MPI_Allgather(n) <= MPI_Alltoall(n); input=replicated
//
// The package does not import package mpi: a guideline is checked against
// the engine's vocabulary where a campaign is designed (the CLI) and run.
//
// # Method
//
// Plan.Design makes the campaign: every distinct side of every guideline
// at every size is one experiment, measured in each of several mpiruns,
// in an order shuffled per mpirun with a recorded seed (design.FromList,
// Hunold & Carpen-Amarie 2016, Alg. 5). The mpirun is the unit of the test (Hunold et al. 2014: the
// mpirun is a factor, and the noise between mpiruns can be larger than a
// violation): FromSummaries takes each side's per-mpirun medians after
// Tukey's filter (analysis.Analyze, Hunold & Carpen-Amarie 2016, Alg. 6), and Decide tests,
// for every guideline and size, H0: lhs ≤ rhs against H1: lhs > rhs with
// the one-sided Wilcoxon signed-rank test on the medians paired by mpirun
// (exact for fewer than 50 mpiruns without ties). Holm's step-down
// correction over every (guideline, size) of a context (np, datatype,
// labels such as the MPI library) keeps the family-wise error rate at most
// Alpha under any dependence between the tests (sides are shared between
// guidelines); a violation is a Holm-adjusted p ≤ Alpha. Its size is the
// Hodges-Lehmann shift lhs − rhs (the pseudo-median of the paired
// differences, analysis.HodgesLehmannPaired) with its confidence interval.
//
// With m paired mpiruns the smallest exact one-sided p-value is 2^-m, so a
// family of T tests can find nothing with fewer than MinMpiruns(T, α) =
// ⌈log2(T/α)⌉ mpiruns: 10 for the default table at three sizes and
// α = 0.05. Decide warns when the data has fewer.
//
// Report writes the verdicts as a table (WriteText), as JSON a library's
// CI can gate on (WriteJSON, schema "reprobench-guidelines/1", described in
// docs/guidelines.md) and as a plot (Plot).
package guidelines
