// Package rawdata is the raw-data format of reprobench: what "reprobench
// run" writes and what package analysis reads. It owns the column lists,
// the file names, the run-id and label rules, the JSON metadata sidecar's
// schema and the write protocol, and provides the [Writer] that package
// reprobench's Run writes through, so a Go program that runs experiments
// (or times its own code) gets files that "reprobench analyze" and "compare" group with the
// CLI's own. It imports no MPI binding.
//
// # Files
//
// One mpirun of run id ID with index N writes, into one directory:
//
//	ID-mpirunNNN.csv        raw data, one row per observation ([Columns])
//	ID-mpirunNNN.ranks.csv  optional, one row per observation and rank ([RankColumns])
//	ID-mpirunNNN.json       the metadata sidecar ([Metadata])
//
// NNN is N formatted %03d ([OutputBase], [NamesFor]). Run ids are made of
// letters, digits, '_', '-' and '.', not starting with '.' or '-'
// ([CheckRunID]), so they are safe in file names, globs and unquoted CSV.
//
// # Write protocol
//
// Each file is first written as NAME.partial, created exclusively; rows are
// buffered and flushed after each experiment. [Writer.Close] fsyncs the
// .partial files, writes the sidecar's .partial, renames the data files and
// then the sidecar, and fsyncs the directory: the presence of the sidecar
// means the mpirun completed. [Writer.Abort] leaves every .partial file
// (the sidecar's included, with the metadata up to the failure) for
// inspection. [Create] refuses to start when a final file or a .partial
// file of the same name exists: results and the leftovers of a failed run
// are never overwritten.
//
// # CSV
//
// Plain CSV: comma, "\n", one header line, no quoting (label values may not
// contain commas, quotes or line breaks: [CheckLabel]). Seconds are printed
// with the shortest representation that parses back to the same float64
// (2.91e-07).
//
// The raw file's header is [Columns], then [FactorColumns], then one column
// per label key, sorted:
//
//	run_id        identifier of the run (campaign)
//	mpirun        index of the mpirun in the campaign
//	exp           experiment number: the position of the configuration in
//	              the unshuffled factorial (or the design file's exp); the
//	              same configuration has the same exp in every mpirun
//	call          MPI_Bcast, MPI_Allreduce, …, pingpong, or a user's name
//	msize_bytes   message size per rank's contribution, bytes
//	count         elements per rank (msize_bytes / size of the datatype)
//	datatype      byte, int32, int64, float32 or float64 ([Datatypes])
//	np            number of ranks
//	rep           0-based index of the observation within the experiment
//	runtime_s     completion time of the observation, seconds
//	errorcode     0 = valid, else the bits of [ErrorCodes]
//	procsync      process synchronization method (barrier, window, …)
//	window_s      initial window of a windowed method, seconds; 0 otherwise
//	runtime_type  local, global or loop
//	cache         warm, cold, cycle or random
//	clocksync     clock synchronization spec, its commas written as ';', or none
//	skew          the v-collectives' skew k: the last rank's blocks have k times
//	              count elements (1: uniform counts); empty for calls without
//	              count vectors
//	LABEL…        one column per label key (run-wide or per experiment)
//
// Label keys are letters, digits and '_', starting with a letter, and
// never a column name; an experiment's label overrides the run's label of
// the same key; an unset label is an empty cell.
//
// A run with experiments of the overlap measurement ends each row with
// [OverlapColumns]; a run of application regions (package region,
// Experiment.Region) with [RegionColumns], values that readers must not
// take for labels.
//
// The per-rank file has [RankColumns]: local_*_s are seconds on the rank's
// own clock since its epoch, global_*_s the same instants in global time;
// errorcode is the observation's (identical on every rank's row). In a run
// of application regions the label columns follow, so that per-rank rows
// of different regions fall into different groups.
//
// # Sidecar
//
// The sidecar is [Metadata] encoded as indented JSON. Records produced by
// other packages are embedded as their own JSON: the clock
// (timing.Measurement), the TSC facts, each clock synchronization's result
// (clocksync.Result) and the environment (design.Environment).
package rawdata
