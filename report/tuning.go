package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/tune"
)

// TuningSection is the report's account of a tuning campaign: per
// collective, each candidate's time ratio to the default with its
// interval across process counts and sizes, the decision, and, when a
// confirmation campaign was judged by the regression gate, its verdict
// per cell.
type TuningSection struct {
	Calls []TuningCall
	// Confirmation is the gate's one-line verdict ("" without one).
	Confirmation string
	// Method states the test, threshold, level and family.
	Method string
}

// TuningCall is one collective's table.
type TuningCall struct {
	Call       string
	Candidates []string // the non-default candidates, the columns
	Rows       []TuningRow
}

// TuningRow is one cell.
type TuningRow struct {
	Np    int
	Bytes int64
	// Default is the default's median of per-mpirun medians and its
	// mpirun count, e.g. "270 µs (n=8)".
	Default string
	// Ratios are, per TuningCall.Candidates, "ratio [lo, hi]" of
	// candidate/default time, "*" appended where the candidate is faster
	// by more than the threshold with significance; "" where the cell
	// has no such candidate.
	Ratios []string
	// Decision is the chosen candidate and the verdict, e.g. "ring
	// (replaced)"; Reason the decision's sentence.
	Decision, Reason string
	// Confirmed is the confirmation gate's decision for the cell
	// ("no-regression", "regression", "undecided"; "" when not given or
	// the cell was not confirmed).
	Confirmed string
}

// NewTuningSection builds the section from Decide's decisions and,
// optionally (nil: none), the regression gate's report of the
// confirmation campaign (default as A, the decision file as B), whose
// rows are matched to cells by call, size and process count.
func NewTuningSection(ds []tune.Decision, confirm *analysis.GateReport) TuningSection {
	var s TuningSection
	type cellKey struct {
		call  string
		bytes int64
		np    int
	}
	conf := map[cellKey]string{}
	if confirm != nil {
		s.Confirmation = confirm.Summary()
		for _, r := range confirm.Rows {
			conf[cellKey{r.Key.Call, int64(r.Key.MsizeBytes), r.Key.Np}] = r.Decision.String()
		}
	}
	if len(ds) > 0 {
		d := ds[0]
		s.Method = fmt.Sprintf("Candidate/default time ratio (Hodges-Lehmann on per-mpirun medians) with its interval; * = faster by more than %g%% at Holm alpha %g over a %s family of %d tests.",
			100*d.Threshold, d.Alpha, d.Family, d.FamilySize)
	}
	idx := map[string]int{}
	for _, d := range ds {
		i, ok := idx[d.Call]
		if !ok {
			i = len(s.Calls)
			idx[d.Call] = i
			s.Calls = append(s.Calls, TuningCall{Call: d.Call})
		}
		for _, c := range d.Candidates {
			if !slices.Contains(s.Calls[i].Candidates, c.Name) {
				s.Calls[i].Candidates = append(s.Calls[i].Candidates, c.Name)
			}
		}
	}
	for i := range s.Calls {
		slices.Sort(s.Calls[i].Candidates)
	}
	for _, d := range ds {
		tc := &s.Calls[idx[d.Call]]
		row := TuningRow{Np: d.Np, Bytes: d.Bytes, Default: fmt.Sprintf("%s (n=%d)", fmtSeconds(d.DefaultMedian.Seconds()), d.DefaultN),
			Decision: fmt.Sprintf("%s (%s)", d.Chosen, d.Verdict), Reason: d.Reason,
			Confirmed: conf[cellKey{d.Call, d.Bytes, d.Np}]}
		for _, name := range tc.Candidates {
			c, ok := d.Result(name)
			if !ok {
				row.Ratios = append(row.Ratios, "")
				continue
			}
			r := fmt.Sprintf("%s [%s, %s]", analysis.FormatRatio(c.Ratio), analysis.FormatRatio(c.RatioCI.Lo), analysis.FormatRatio(c.RatioCI.Hi))
			if c.Faster {
				r += "*"
			}
			row.Ratios = append(row.Ratios, r)
		}
		tc.Rows = append(tc.Rows, row)
	}
	return s
}

// WriteText writes the section as plain-text tables, one per collective.
func (s TuningSection) WriteText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, "Tuning decisions")
	if s.Method != "" {
		fmt.Fprintln(&b, s.Method)
	}
	if s.Confirmation != "" {
		fmt.Fprintln(&b, "Confirmation:", s.Confirmation)
	}
	for _, c := range s.Calls {
		fmt.Fprintf(&b, "\n%s\n", c.Call)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		hdr := []string{"np", "msize_bytes", "default"}
		hdr = append(hdr, c.Candidates...)
		hdr = append(hdr, "decision")
		if s.Confirmation != "" {
			hdr = append(hdr, "confirmed")
		}
		fmt.Fprintln(tw, strings.Join(hdr, "\t"))
		for _, r := range c.Rows {
			f := []string{fmt.Sprint(r.Np), fmt.Sprint(r.Bytes), r.Default}
			for _, x := range r.Ratios {
				f = append(f, dash(x))
			}
			f = append(f, r.Decision)
			if s.Confirmation != "" {
				f = append(f, dash(r.Confirmed))
			}
			fmt.Fprintln(tw, strings.Join(f, "\t"))
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

var tuningTemplate = template.Must(template.New("tuning").Parse(`<section id="tuning"><h2>Tuning decisions</h2>
{{if .Method}}<p>{{.Method}}</p>{{end}}{{if .Confirmation}}<p>Confirmation: {{.Confirmation}}</p>{{end}}
{{range .Calls}}{{$c := .}}<h3>{{.Call}}</h3>
<table><thead><tr><th>np</th><th>msize_bytes</th><th>default</th>{{range .Candidates}}<th>{{.}}</th>{{end}}<th>decision</th>{{if $.Confirmation}}<th>confirmed</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td>{{.Np}}</td><td>{{.Bytes}}</td><td>{{.Default}}</td>{{range .Ratios}}<td>{{.}}</td>{{end}}<td title="{{.Reason}}">{{.Decision}}</td>{{if $.Confirmation}}<td>{{.Confirmed}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}</section>
`))

// HTML returns the section as an HTML fragment for the report page: one
// table per collective, each decision's reason as its cell's title.
func (s TuningSection) HTML() (template.HTML, error) {
	var b bytes.Buffer
	if err := tuningTemplate.Execute(&b, s); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
