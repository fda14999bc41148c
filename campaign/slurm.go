package campaign

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SlurmJob is what the launcher knows of the Slurm job (or job step) of
// one attempt: it names it so that it can find it, cancel it after a
// timeout, and record it. The ranks' own view (SLURM_JOB_ID,
// SLURM_STEP_ID, SLURM_JOB_NODELIST, SLURM_MPI_TYPE) is in the run's
// sidecar (environment.mpi_env).
//
// Three kinds: a job of its own (srun outside an allocation, or sbatch
// with Campaign.Batch: JobName is the job's name); a step of the
// allocation the launcher runs in (srun under salloc or sbatch: Step is
// true, JobID is the allocation, StepID the step, named JobName with
// srun --job-name); a task of a job array (Campaign.Array: ArrayJobID and
// ArrayTaskID, JobID the task's own job id).
type SlurmJob struct {
	JobName string `json:"job_name"`
	JobID   string `json:"job_id,omitempty"`
	// Step is true for a step of the launcher's own allocation.
	Step   bool   `json:"step,omitempty"`
	StepID string `json:"step_id,omitempty"`
	// ArrayJobID and ArrayTaskID name the array task that ran the mpirun
	// (ArrayTaskID is the mpirun's index).
	ArrayJobID  string `json:"array_job_id,omitempty"`
	ArrayTaskID string `json:"array_task_id,omitempty"`
	// State is the last state Slurm reported (squeue, scontrol). A step
	// that ended is forgotten at once: its state is only set when the
	// launcher cancelled it (CANCELLED).
	State string `json:"state,omitempty"`
	Nodes string `json:"nodes,omitempty"`
	// ExitCode is Slurm's EXIT:SIGNAL of the job or array task (scontrol
	// show job; not known for a step).
	ExitCode string `json:"exit_code,omitempty"`
	// MPI is the --mpi plugin on srun's command line ("" for Slurm's
	// default, MpiDefault).
	MPI string `json:"mpi,omitempty"`
	// Cancelled is true when the launcher ran scancel because the job,
	// step or task was still alive after srun was stopped, or ran past
	// the timeout.
	Cancelled bool `json:"cancelled,omitempty"`
}

// ID returns what scancel takes: JOBID, JOBID.STEPID for a step,
// ARRAYJOBID_TASKID for an array task.
func (j *SlurmJob) ID() string {
	switch {
	case j.Step:
		return j.JobID + "." + j.StepID
	case j.ArrayJobID != "":
		return j.ArrayJobID + "_" + j.ArrayTaskID
	}
	return j.JobID
}

// srunIndex returns the index of the first word of the launcher (the first
// n words of argv) that runs srun, or -1: the launcher may wrap srun (env,
// setsid, numactl).
func srunIndex(argv []string, n int) int {
	for i := 0; i < n && i < len(argv); i++ {
		if filepath.Base(argv[i]) == "srun" {
			return i
		}
	}
	return -1
}

// slurmStepQuery returns the id, node list and state of the live step
// named name of job ("" when there is none: squeue -s lists only live
// steps, and Slurm keeps no record of an ended one without accounting).
func slurmStepQuery(job, name string) (step, nodes, state string) {
	out, err := exec.Command("squeue", "-h", "-s", "-j", job, "-o", "%i|%j|%N").Output()
	if err != nil {
		return "", "", ""
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 || f[1] != name {
			continue
		}
		_, step, _ = strings.Cut(f[0], ".")
		nodes = f[2]
		state = "RUNNING"
		if o, err := exec.Command("scontrol", "-o", "show", "step", f[0]).Output(); err == nil {
			if v := scontrolField(string(o), "State"); v != "" {
				state = v
			}
		}
		return step, nodes, state
	}
	return "", "", ""
}

// slurmStepSeen records the id and nodes of step j if it is alive, and
// reports whether they are known.
func slurmStepSeen(j *SlurmJob) bool {
	if step, nodes, state := slurmStepQuery(j.JobID, j.JobName); step != "" {
		j.StepID, j.Nodes, j.State = step, nodes, state
	}
	return j.StepID != ""
}

// slurmFinishStep is slurmFinish for a step of the launcher's allocation:
// when the attempt was stopped and its step is still alive after srun
// ended (srun was killed before it took its step down, or escaped the
// process group), it cancels that step only (scancel JOBID.STEPID: the
// allocation and the campaign's later steps live on), then waits at most
// grace for it to go. A step that ended is forgotten by Slurm, so State
// stays as last seen unless the launcher cancelled it.
func slurmFinishStep(j *SlurmJob, stopped bool, grace time.Duration) {
	step, nodes, state := slurmStepQuery(j.JobID, j.JobName)
	if step != "" {
		j.StepID, j.Nodes, j.State = step, nodes, state
	}
	if step == "" {
		if j.State == "RUNNING" {
			j.State = "" // it ended; how, srun's exit status says
		}
		return
	}
	if stopped && exec.Command("scancel", j.JobID+"."+step).Run() == nil {
		j.Cancelled = true
	}
	for end := time.Now().Add(grace); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if s, _, st := slurmStepQuery(j.JobID, j.JobName); s == "" {
			if j.Cancelled {
				j.State = "CANCELLED"
			} else {
				j.State = ""
			}
			return
		} else {
			j.State = st
		}
	}
}

// sidecarStep fills the step id and nodes of j from the ranks' view in the
// sidecar at path (SLURM_STEP_ID, SLURM_JOB_NODELIST), for a step that
// ended before the launcher saw it.
func sidecarStep(j *SlurmJob, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var meta struct {
		Environment struct {
			MPIEnv map[string]string `json:"mpi_env"`
		} `json:"environment"`
	}
	if json.Unmarshal(b, &meta) != nil {
		return
	}
	e := meta.Environment.MPIEnv
	if e["SLURM_JOB_ID"] == j.JobID && e["SLURM_STEP_ID"] != "" {
		j.StepID, j.Nodes = e["SLURM_STEP_ID"], e["SLURM_JOB_NODELIST"]
	}
}

// scontrolField returns the value of KEY=value in one line of scontrol -o
// output ("" if absent). Values end at a space; keys match exactly
// (NodeList is not ReqNodeList).
func scontrolField(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

// SrunMPI returns the value of srun's --mpi option in argv ("" if absent).
func SrunMPI(argv []string) string {
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, "--mpi="); ok {
			return v
		}
		if a == "--mpi" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// slurmAwait waits until the job of j is no longer alive in Slurm, at most
// limit (0: no limit), then cancels it, and records its id, state and
// nodes.
func slurmAwait(j *SlurmJob, limit time.Duration) {
	end := time.Now().Add(limit)
	for {
		id, state, nodes, exit := slurmQuery(j.JobName)
		if id != "" {
			j.JobID, j.State, j.Nodes, j.ExitCode = id, state, nodes, exit
		}
		if !slurmAlive(state) {
			return
		}
		if limit > 0 && time.Now().After(end) {
			slurmFinish(j, true, DefaultGrace)
			return
		}
		time.Sleep(time.Second)
	}
}

// ShellJoin quotes args for /bin/sh (each in single quotes) and joins them
// with spaces: the one command string of sbatch --wrap.
func ShellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// slurmQuery returns the id, state, node list and exit code (EXIT:SIGNAL)
// of the newest job named name that Slurm remembers ("" when none). squeue
// finds the job by name; scontrol show job, which keeps a finished job for
// MinJobAge like squeue but also says how it ended, gives the rest.
func slurmQuery(name string) (id, state, nodes, exitCode string) {
	out, err := exec.Command("squeue", "-h", "-t", "all", "-n", name, "-o", "%i|%T|%N").Output()
	if err != nil {
		return "", "", "", ""
	}
	best := -1
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			continue
		}
		if n, err := strconv.Atoi(f[0]); err == nil && n > best {
			best, id, state, nodes = n, f[0], f[1], f[2]
		}
	}
	if id == "" {
		return "", "", "", ""
	}
	if o, err := exec.Command("scontrol", "-o", "show", "job", id).Output(); err == nil {
		line, _, _ := strings.Cut(string(o), "\n")
		if v := scontrolField(line, "JobState"); v != "" {
			state = v
		}
		if v := scontrolField(line, "NodeList"); v != "" && v != "(null)" {
			nodes = v
		}
		exitCode = scontrolField(line, "ExitCode")
	}
	return id, state, nodes, exitCode
}

// slurmAlive reports whether a job in this squeue state may still run.
func slurmAlive(state string) bool {
	switch state {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "RESIZING", "REQUEUED", "STOPPED", "SIGNALING":
		return true
	}
	return false
}

// slurmFinish records the job of an srun or sbatch attempt (id, state,
// nodes, exit code: squeue and scontrol remember finished jobs for
// MinJobAge). When the attempt
// was stopped, it cancels the job if it is still alive. Either way it waits
// (at most grace) until Slurm no longer counts the job as alive (a job is
// "COMPLETING" for a moment after srun returns), so that the next mpirun
// does not queue behind it and the recorded state is final.
func slurmFinish(j *SlurmJob, stopped bool, grace time.Duration) {
	alive := slurmAlive
	j.JobID, j.State, j.Nodes, j.ExitCode = slurmQuery(j.JobName)
	if stopped && alive(j.State) && j.State != "COMPLETING" {
		if exec.Command("scancel", "--name", j.JobName).Run() == nil {
			j.Cancelled = true
		}
	}
	for end := time.Now().Add(grace); time.Now().Before(end) && alive(j.State); time.Sleep(100 * time.Millisecond) {
		_, j.State, _, j.ExitCode = slurmQuery(j.JobName)
	}
}
