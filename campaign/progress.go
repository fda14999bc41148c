package campaign

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// IsTerminal reports whether f is a terminal (then Options.Bar makes sense).
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// progress reports runs done and an ETA, as a bar or as plain lines.
type progress struct {
	o        Options
	bar      *progressbar.ProgressBar
	todo     int // mpiruns to run now
	finished int // of todo
	already  int // complete before this launch
	total    int
	t0       time.Time
}

func newProgress(o Options, todo, already, total int) *progress {
	p := &progress{o: o, todo: todo, already: already, total: total, t0: time.Now()}
	if o.Progress == nil {
		return p
	}
	if already > 0 {
		fmt.Fprintf(o.Progress, "campaign: %d of %d mpiruns already complete; running %d\n", already, total, todo)
	}
	if o.Bar && todo > 0 {
		p.bar = progressbar.NewOptions(todo,
			progressbar.OptionSetWriter(o.Progress),
			progressbar.OptionSetDescription("mpiruns"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(o.Progress) }),
		)
		_ = p.bar.RenderBlank()
	}
	return p
}

func (p *progress) start(i int) {
	switch {
	case p.o.Progress == nil:
	case p.bar != nil:
		p.bar.Describe(fmt.Sprintf("mpirun %d", i))
	default:
		fmt.Fprintf(p.o.Progress, "campaign: mpirun %d started (%d/%d of this launch)\n", i, p.finished+1, p.todo)
	}
}

func (p *progress) done(i int, status string, durationS float64) {
	p.finished++
	if p.o.Progress == nil {
		return
	}
	if p.bar != nil {
		if status != StatusOK {
			// Keep failures visible above the bar.
			_ = p.bar.Clear()
			fmt.Fprintf(p.o.Progress, "campaign: mpirun %d %s after %.3g s\n", i, status, durationS)
		}
		_ = p.bar.Add(1)
		return
	}
	eta := ""
	if left := p.todo - p.finished; left > 0 {
		per := time.Since(p.t0) / time.Duration(p.finished)
		eta = fmt.Sprintf(", %d to go, ETA %v", left, (per * time.Duration(left)).Round(time.Second))
	}
	fmt.Fprintf(p.o.Progress, "campaign: mpirun %d %s in %.3g s (%d/%d done%s)\n", i, status, durationS, p.finished, p.todo, eta)
}

func (p *progress) finish() {
	if p.bar != nil && !p.bar.IsFinished() {
		_ = p.bar.Exit()
		fmt.Fprintln(p.o.Progress)
	}
}
