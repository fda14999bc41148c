// Package campaign launches the mpiruns of a benchmark campaign, one after
// the other, and records what became of each in a manifest, so that a
// campaign survives failed, killed and timed-out mpiruns, a killed
// launcher, and Slurm jobs that are cancelled or time out, and is resumed
// without losing or duplicating a mpirun. Package design plans what the
// mpiruns measure; this package only runs them ("reprobench launch" is its
// command line).
//
// # What the launcher guarantees
//
// [Start] runs a [Campaign] of N mpiruns one after the other (mpirun i is
// 0-based), without a shell, each as
//
//	LAUNCHER… PROGRAM… --out DIR --run-id ID --mpirun i --seed S_i [--design FILE] RUNARGS…
//
// The run writes DIR/ID-mpirunNNN.csv (NNN = %03d), optionally
// DIR/ID-mpirunNNN.ranks.csv, and last the JSON sidecar
// DIR/ID-mpirunNNN.json, each first as NAME.partial, fsynced and renamed,
// never overwriting a final file. So mpirun i is complete if and only if
// its sidecar exists ([SidecarPath]); the launcher trusts nothing else.
//
// The campaign is recorded in DIR/ID-campaign.json ([Manifest]), rewritten
// atomically (temporary file, fsync, rename, fsync of the directory) after
// every change: the launcher template and expanded argv of every mpirun,
// N, np, the campaign seed and each mpirun's seed, the design file and its
// SHA-256, the launcher host's [design.Environment], and every attempt with its
// status (ok, failed with exit status or signal and the last 50 lines of
// stderr, timed_out, interrupted, or abandoned when the launcher died), its
// process group and duration. stdout and stderr of each attempt are kept in
// DIR/ID-logs/mpirunNNN-attemptK.{stdout,stderr}. A failed mpirun is
// recorded and the campaign goes on (unless Options.FailFast).
//
// Each mpirun runs in a process group of its own with Pdeathsig SIGKILL, so
// a launcher killed by SIGKILL takes its mpirun with it. A timeout (or an
// interrupt) kills the group and every descendant found in /proc — Open MPI
// gives every rank a process group of its own, so killing the group alone
// would leave the ranks running. After every attempt, and before a mpirun
// is run again, any process on this machine whose command line carries the
// campaign's --out, --run-id and that --mpirun is killed: orphaned ranks
// can never write into a retried mpirun's files. (Processes on other nodes,
// under srun, are out of reach; Slurm cleans up its steps itself.)
//
// [Resume] runs only the mpiruns whose sidecar is missing. Before it
// re-runs one, the leftovers of its earlier attempts — the .partial files
// of a killed run and any final .csv written before the sidecar — are
// moved, never deleted, to DIR/ID-aside/mpirunNNN-attemptK/ (recorded in
// the attempt's moved_aside). Completed mpiruns are never touched. An
// exclusive flock on DIR/ID-campaign.lock keeps two launchers off the same
// campaign; the kernel releases it when the launcher dies.
//
// # Slurm
//
// A launcher that runs srun (as its first word or after a wrapper such as
// env or setsid) outside an allocation makes each mpirun a Slurm job of its
// own, named so that the launcher finds it (squeue), cancels it after a
// timeout (scancel --name) and records its id, state, nodes and PMI plugin
// ([SlurmJob]). Inside an allocation (SLURM_JOB_ID set: salloc, an sbatch
// script) each mpirun is a step of it, named with srun --job-name; a step
// still alive after a timeout's SIGTERM, grace and SIGKILL is cancelled
// alone (scancel JOBID.STEPID), before the local kill, since Slurm's cancel
// reaches every node. With Campaign.Batch every mpirun is a batch job of
// its own (sbatch --wait): the allocation becomes a factor like the mpirun.
// With Campaign.Array the mpiruns are the tasks of one job array, followed
// with scontrol show job (see executeArray's notes in array.go and
// [SlurmJob.ID]). [ExpectNpEnv] lets the run refuse a run of singletons.
//
// Without accounting, Slurm forgets a finished job MinJobAge seconds after
// it ends (300 by default) and a finished step at once; after that the
// launcher cannot learn how it ended, and the sidecar alone decides: a
// mpirun without one is run again. A job still pending or running is never
// forgotten, so this never runs a mpirun twice.
package campaign
