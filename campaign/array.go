package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/design"
)

// The job-array mode (Campaign.Array) is described in the package
// documentation ("Job arrays").

// arrayTask is one task the launcher follows.
type arrayTask struct {
	i         int      // mpirun
	a         *Attempt // its attempt in the manifest
	adopted   bool     // an attempt of a launcher that died
	started   time.Time
	killedFor string
	done      bool
}

// taskState is what scontrol says of one array task.
type taskState struct {
	jobID, state, nodes, exitCode string
}

// executeArray runs the mpiruns todo as tasks of Slurm job arrays.
func (m *Manifest) executeArray(ctx context.Context, o Options, p *progress, todo []int) error {
	var tracked []*arrayTask
	var fresh []int
	for _, i := range todo {
		r := &m.Runs[i]
		n := len(r.Attempts)
		if n == 0 || r.Attempts[n-1].Status != StatusAbandoned || r.Attempts[n-1].Slurm == nil || r.Attempts[n-1].Slurm.ArrayTaskID == "" {
			fresh = append(fresh, i)
			continue
		}
		// A task of a launcher that died: ask Slurm.
		a := &r.Attempts[n-1]
		if a.Slurm.ArrayJobID == "" {
			a.Slurm.ArrayJobID = slurmArrayID(a.Slurm.JobName)
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "campaign: mpirun %d: asking Slurm about array task %s of the earlier attempt\n", i, a.Slurm.ID())
		}
		st, ok := taskState{}, false
		if a.Slurm.ArrayJobID != "" {
			states, _ := arrayStates(a.Slurm.ArrayJobID)
			st, ok = states[i]
		}
		if ok && slurmAlive(st.state) {
			a.Slurm.State = st.state
			t := &arrayTask{i: i, a: a, adopted: true}
			if st.state == "RUNNING" {
				t.started = time.Now()
			}
			tracked = append(tracked, t)
			continue
		}
		if ok {
			recordTask(a.Slurm, st)
			a.Error += fmt.Sprintf("; its array task %s ended %s", a.Slurm.ID(), st.state)
		} else {
			a.Error += "; Slurm does not know its array task (it never started, or MinJobAge passed since it ended)"
		}
		fresh = append(fresh, i)
	}
	var failed []int
	for round := 0; ; round++ {
		if len(fresh) > 0 && ctx.Err() == nil && !(o.FailFast && len(failed) > 0) {
			ts, err := m.submitArray(o, p, fresh)
			if err != nil {
				return err
			}
			tracked = append(tracked, ts...)
		}
		if len(tracked) == 0 {
			break
		}
		retry, f, err := m.follow(ctx, o, p, tracked)
		if err != nil {
			return err
		}
		failed = append(failed, f...)
		tracked = nil
		// Tasks of a dead launcher that failed are submitted once more
		// now; those of this launch wait for the next resume, as in the
		// other modes.
		if len(retry) == 0 || round > 0 {
			break
		}
		fresh = retry
	}
	return m.incompleteError(ctx, failed)
}

// submitArray submits the mpiruns list as one job array and returns the
// tasks to follow. An error is only returned when the manifest could not
// be written; a failed submission is recorded in the attempts.
func (m *Manifest) submitArray(o Options, p *progress, list []int) ([]*arrayTask, error) {
	name := fmt.Sprintf("rb-%s-array-%d-%x", m.RunID, os.Getpid(), time.Now().UnixNano()&0xffffffff)
	script := filepath.Join(LogDir(m.Dir, m.RunID), name+".sh")
	var body strings.Builder
	fmt.Fprintf(&body, "#!/bin/sh\n# reprobench campaign %s (%s): array task i runs mpirun i.\ncase \"$SLURM_ARRAY_TASK_ID\" in\n", m.RunID, m.path())
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var ids []int
	for _, i := range list {
		r := &m.Runs[i]
		k := len(r.Attempts) + 1
		a := Attempt{Status: StatusRunning, Started: now, TimeoutS: o.Timeout.Seconds()}
		killed, err := killStale(m.Dir, m.RunID, i, o.StaleWait)
		a.KilledStale = killed
		if err != nil {
			return nil, fmt.Errorf("campaign: mpirun %d: %w", i, err)
		}
		if exists(sidecarPath(m.Dir, m.RunID, i)) {
			r.Status, r.Complete = StatusOK, true
			continue
		}
		moved, err := moveAside(m.Dir, m.RunID, i, k)
		a.MovedAside = moved
		if err != nil {
			return nil, fmt.Errorf("campaign: mpirun %d: moving leftovers aside: %w", i, err)
		}
		logBase := filepath.Join(LogDir(m.Dir, m.RunID), fmt.Sprintf("mpirun%03d-attempt%d", i, k))
		a.StdoutLog, a.StderrLog = logBase+".stdout", logBase+".stderr"
		a.Slurm = &SlurmJob{JobName: name, ArrayTaskID: strconv.Itoa(i), MPI: SrunMPI(m.Launcher)}
		fmt.Fprintf(&body, "%d) exec %s >%s 2>%s ;;\n", i, ShellJoin(r.Argv), ShellJoin([]string{a.StdoutLog}), ShellJoin([]string{a.StderrLog}))
		r.Attempts = append(r.Attempts, a)
		r.Status = StatusRunning
		ids = append(ids, i)
	}
	if len(ids) == 0 {
		return nil, m.save()
	}
	body.WriteString("*) echo \"reprobench: no mpirun $SLURM_ARRAY_TASK_ID in this array\" >&2; exit 2 ;;\nesac\n")
	if err := design.WriteAtomic(script, []byte(body.String()), false); err != nil {
		return nil, err
	}
	// Recorded before sbatch: a launcher that dies during the submission
	// leaves the name, by which a resume finds the array.
	if err := m.save(); err != nil {
		return nil, err
	}
	argv := append(ExpandLauncher(m.Batch, m.Np), "--array="+CompactList(ids), "--job-name="+name, "--parsable", script)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), o.Env...), fmt.Sprintf("%s=%d", expectNpEnv, m.Np))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if err == nil && id == "" {
		err = errors.New("no job id on its output")
	}
	if _, perr := strconv.Atoi(id); err == nil && perr != nil {
		err = fmt.Errorf("job id %q is not a number", id)
	}
	var ts []*arrayTask
	for _, i := range ids {
		r := &m.Runs[i]
		a := &r.Attempts[len(r.Attempts)-1]
		if err != nil {
			a.Status, r.Status = StatusFailed, StatusFailed
			a.Error = fmt.Sprintf("could not submit the job array (%s): %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
			a.Ended = time.Now().UTC().Format(time.RFC3339Nano)
			p.start(i)
			p.done(i, a.Status, 0)
			continue
		}
		a.Slurm.ArrayJobID = id
		ts = append(ts, &arrayTask{i: i, a: a})
	}
	if o.Progress != nil && err == nil {
		fmt.Fprintf(o.Progress, "campaign: submitted %d mpiruns as Slurm job array %s (%s)\n", len(ids), id, name)
	}
	return ts, m.save()
}

// follow polls Slurm until every task of tracked has ended, cancelling
// those past Options.Timeout, and records each. It returns the adopted
// tasks (of a dead launcher) that ended without a sidecar and the mpiruns
// of this launch that did not succeed.
func (m *Manifest) follow(ctx context.Context, o Options, p *progress, tracked []*arrayTask) (retry, failed []int, err error) {
	const every = time.Second
	stopAll := func(why string) {
		for _, t := range tracked {
			if !t.done && t.killedFor == "" {
				t.killedFor = why
				if exec.Command("scancel", t.a.Slurm.ID()).Run() == nil {
					t.a.Slurm.Cancelled = true
				}
			}
		}
	}
	for {
		states := map[string]map[int]taskState{}
		known := map[string]bool{}
		live := 0
		changed := false
		for _, t := range tracked {
			if t.done {
				continue
			}
			id := t.a.Slurm.ArrayJobID
			if _, ok := states[id]; !ok {
				s, err := arrayStates(id)
				if err != nil && !errors.Is(err, errJobUnknown) {
					// The controller did not answer: ask again later,
					// never take it as "ended".
					live++
					continue
				}
				states[id], known[id] = s, err == nil
			}
			st, ok := states[id][t.i]
			if ok && st.state != t.a.Slurm.State {
				changed = true
			}
			if ok {
				recordTask(t.a.Slurm, st)
			}
			if ok && slurmAlive(st.state) {
				live++
				if st.state == "RUNNING" && t.started.IsZero() {
					t.started = time.Now()
					if !t.adopted {
						p.start(t.i)
					}
				}
				if o.Timeout > 0 && !t.started.IsZero() && time.Since(t.started) > o.Timeout && t.killedFor == "" {
					t.killedFor = StatusTimedOut
					if exec.Command("scancel", t.a.Slurm.ID()).Run() == nil {
						t.a.Slurm.Cancelled = true
					}
					changed = true
				}
				continue
			}
			t.done, changed = true, true
			if !ok && !known[id] {
				t.a.Slurm.State = ""
			}
			st2, f := m.finishTask(o, t, ok)
			if t.adopted {
				if !f {
					retry = append(retry, t.i)
				}
				if f {
					p.done(t.i, StatusOK, 0)
				}
				continue
			}
			p.done(t.i, st2, t.a.DurationS)
			if st2 != StatusOK {
				failed = append(failed, t.i)
				if o.FailFast {
					stopAll(StatusInterrupted)
				}
			}
		}
		if changed {
			if err := m.save(); err != nil {
				return nil, nil, err
			}
		}
		if live == 0 {
			return retry, failed, nil
		}
		select {
		case <-ctx.Done():
			stopAll(StatusInterrupted)
			ctx = context.Background()
		case <-time.After(every):
		}
	}
}

// finishTask records the end of task t (seen: Slurm still reported it) and
// returns its status and whether its mpirun is complete.
func (m *Manifest) finishTask(o Options, t *arrayTask, seen bool) (string, bool) {
	r := &m.Runs[t.i]
	a := t.a
	end := time.Now()
	if !t.adopted {
		a.Ended = end.UTC().Format(time.RFC3339Nano)
		if !t.started.IsZero() {
			a.DurationS = end.Sub(t.started).Seconds()
		}
	}
	// Ranks of a cancelled task that outlived it on this node.
	if k, err := killStale(m.Dir, m.RunID, t.i, o.StaleWait); err != nil {
		a.Error = strings.TrimPrefix(a.Error+"; "+err.Error(), "; ")
	} else if len(k) > 0 {
		a.KilledStale = append(a.KilledStale, k...)
	}
	complete := exists(sidecarPath(m.Dir, m.RunID, t.i))
	s := a.Slurm
	if t.adopted {
		a.Error += fmt.Sprintf("; its array task %s ended %s", s.ID(), s.State)
		if complete {
			r.Status, r.Complete = StatusOK, true
		}
		return a.Status, complete
	}
	if st, sig, ok := parseExitCode(s.ExitCode); ok && seen {
		if sig != 0 {
			a.Signal = strconv.Itoa(sig)
		} else {
			a.ExitStatus = &st
		}
	}
	switch {
	case t.killedFor == StatusTimedOut:
		a.Status = StatusTimedOut
		a.Error = fmt.Sprintf("array task %s cancelled (scancel) after running %.3g s, longer than the timeout", s.ID(), a.DurationS)
	case t.killedFor != "":
		a.Status = StatusInterrupted
		a.Error = fmt.Sprintf("array task %s cancelled (scancel): the launcher was interrupted or --fail-fast stopped the campaign", s.ID())
	case !seen:
		a.Status = StatusFailed
		a.Error = fmt.Sprintf("Slurm no longer knows array job %s (MinJobAge passed?); the sidecar decides", s.ArrayJobID)
		if complete {
			a.Status = StatusOK
		}
	case s.State == "COMPLETED" && complete:
		a.Status = StatusOK
	case s.State == "COMPLETED":
		a.Status, a.Error = StatusFailed, "exited with status 0 but wrote no sidecar "+filepath.Base(sidecarPath(m.Dir, m.RunID, t.i))
	case s.State == "TIMEOUT":
		a.Status, a.Error = StatusTimedOut, fmt.Sprintf("array task %s hit its Slurm time limit", s.ID())
	default:
		a.Status, a.Error = StatusFailed, fmt.Sprintf("array task %s ended %s (exit code %s)", s.ID(), s.State, s.ExitCode)
	}
	if a.Status != StatusOK {
		a.StderrTail = tailLines(a.StderrLog, stderrTailLines)
		a.StdoutTail = tailLines(a.StdoutLog, stderrTailLines)
		if complete {
			a.Error += " (its sidecar exists, so its data is complete)"
		}
	}
	r.Status, r.Complete = a.Status, complete
	if complete {
		r.Status = StatusOK
	}
	return a.Status, complete
}

// recordTask copies what scontrol said of a task into j.
func recordTask(j *SlurmJob, st taskState) {
	j.State = st.state
	if st.jobID != "" {
		j.JobID = st.jobID
	}
	if st.nodes != "" && st.nodes != "(null)" {
		j.Nodes = st.nodes
	}
	if st.exitCode != "" {
		j.ExitCode = st.exitCode
	}
}

// errJobUnknown is arrayStates' error for a job Slurm does not know (never
// submitted, or MinJobAge passed since it ended).
var errJobUnknown = errors.New("job unknown to Slurm")

// arrayStates returns the state of every task of array job id, from
// scontrol -o show job (one line per task; pending tasks may share one
// line, ArrayTaskId=3-5,7%2).
func arrayStates(id string) (map[int]taskState, error) {
	cmd := exec.Command("scontrol", "-o", "show", "job", id)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "Invalid job id") {
			return nil, errJobUnknown
		}
		return nil, fmt.Errorf("scontrol show job %s: %v: %s", id, err, strings.TrimSpace(stderr.String()))
	}
	return parseArrayStates(string(out)), nil
}

// parseArrayStates parses scontrol -o show job output.
func parseArrayStates(out string) map[int]taskState {
	states := map[int]taskState{}
	for _, line := range strings.Split(out, "\n") {
		tasks := scontrolField(line, "ArrayTaskId")
		if tasks == "" {
			continue
		}
		st := taskState{jobID: scontrolField(line, "JobId"), state: scontrolField(line, "JobState"),
			nodes: scontrolField(line, "NodeList"), exitCode: scontrolField(line, "ExitCode")}
		ids := ExpandList(tasks)
		if len(ids) > 1 {
			st.jobID = "" // a pending group: no job of its own yet
		}
		for _, i := range ids {
			states[i] = st
		}
	}
	return states
}

// slurmArrayID returns the array job id of the newest array job named name
// ("" when Slurm knows none).
func slurmArrayID(name string) string {
	out, err := exec.Command("squeue", "-h", "-t", "all", "-n", name, "-o", "%F").Output()
	if err != nil {
		return ""
	}
	best := -1
	for _, f := range strings.Fields(string(out)) {
		if n, err := strconv.Atoi(f); err == nil && n > best {
			best = n
		}
	}
	if best < 0 {
		return ""
	}
	return strconv.Itoa(best)
}

// parseExitCode parses Slurm's EXIT:SIGNAL.
func parseExitCode(s string) (status, signal int, ok bool) {
	a, b, found := strings.Cut(s, ":")
	st, err1 := strconv.Atoi(a)
	sig, err2 := strconv.Atoi(b)
	return st, sig, found && err1 == nil && err2 == nil
}

// CompactList writes sorted non-negative integers in Slurm's array syntax:
// runs of consecutive values as ranges, e.g. [0 1 2 5 7 8] → "0-2,5,7-8".
func CompactList(ids []int) string {
	var b strings.Builder
	for k := 0; k < len(ids); {
		j := k
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[k]))
		if j > k {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		k = j + 1
	}
	return b.String()
}

// ExpandList reads Slurm's array index syntax as scontrol prints it
// ("3", "0-2,5", "1-7:2", with an optional "%LIMIT"), the inverse of
// CompactList; malformed parts are skipped.
func ExpandList(s string) []int {
	s, _, _ = strings.Cut(s, "%")
	var ids []int
	for _, part := range strings.Split(s, ",") {
		rng, stepStr, hasStep := strings.Cut(part, ":")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n < 1 {
				continue
			}
			step = n
		}
		a, b, isRange := strings.Cut(rng, "-")
		lo, err := strconv.Atoi(a)
		if err != nil || lo < 0 {
			continue
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil || hi < lo || hi-lo > maxMpiruns*step {
				continue
			}
		}
		for i := lo; i <= hi; i += step {
			ids = append(ids, i)
		}
	}
	return ids
}
