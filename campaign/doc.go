// Package campaign launches the mpiruns of a benchmark campaign, one after
// the other (or as the tasks of a Slurm job array), and records what became of each in a manifest, so that a
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
// its sidecar exists ([rawdata.SidecarPath]); the launcher trusts nothing else.
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
// under srun, are out of reach of this kill: a Slurm job or step still
// alive is cancelled through Slurm, see below.)
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
// [expectNpEnv] tells every rank how many processes launch started.
//
// # A run of singletons
//
// A launcher or srun PMI plugin that does not connect the ranks to the
// binary's MPI library starts singletons: every process is a job of one,
// and would measure alone and write a result of np 1. [Declared] reads the
// process counts the launchers declare to each process (expectNpEnv;
// OMPI_COMM_WORLD_SIZE, PMI_SIZE, MPI_LOCALNRANKS, srun's
// SLURM_STEP_NUM_TASKS, …), and [CheckSize] refuses a communicator of
// another size, naming the likely cause and the fix ([SrunPMI]: the srun
// --mpi plugin each library needs). "reprobench run" and "clockcheck" run
// it on every rank before anything is written (pipeline.CheckLaunch),
// under launch as under a direct srun, mpirun or sbatch script.
//
// # Job arrays
//
// With Campaign.Array the mpiruns are the tasks of Slurm job arrays: one
// sbatch --array per launch (and one more on a resume that found tasks of
// a dead launcher which then failed). Task i runs mpirun i, through a
// script DIR/ID-logs/NAME.sh whose case on SLURM_ARRAY_TASK_ID execs the
// mpirun's recorded argv with its stdout and stderr in the attempt's log
// files. The launcher follows the tasks with scontrol show job and records
// per task the array job id, the task's own job id, node list, state and
// exit code ([SlurmJob]). Nothing is lost or run twice:
//   - the manifest records every task as running, with the array's unique
//     job name, before sbatch is called, and with its job id after;
//   - a resume asks Slurm about the tasks of a launcher that died (by job
//     id, or by name when the launcher died during sbatch): tasks still
//     pending or running are followed to their end (and cancelled at the
//     timeout), not submitted again; only mpiruns without a sidecar are
//     submitted again;
//   - a task that fails, is cancelled (scancel) or hits a time limit is
//     recorded as failed or timed out, and the other tasks go on;
//   - with Options.Timeout, a task that has run longer (counted from when
//     the launcher first saw it running) is cancelled (scancel
//     ARRAYJOBID_TASK: Slurm sends SIGTERM, then SIGKILL after KillWait).
//
// Slurm's MaxArraySize (1001 by default) bounds the mpirun indexes.
//
// Without accounting, Slurm forgets a finished job MinJobAge seconds after
// it ends (300 by default) and a finished step at once; after that the
// launcher cannot learn how it ended, and the sidecar alone decides: a
// mpirun without one is run again. A job still pending or running is never
// forgotten, so this never runs a mpirun twice.
package campaign
