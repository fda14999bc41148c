package guidelines

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// schemaVersion names the JSON format of Report (docs/guidelines.md).
const schemaVersion = "reprobench-guidelines/1"

// Report is the result of a guidelines run: one ContextReport per context
// (np, datatype, labels such as the MPI library), each its own Holm family.
type Report struct {
	Schema     string  `json:"schema"`
	Alpha      float64 `json:"alpha"`
	Level      float64 `json:"level"`
	Test       string  `json:"test"`
	Correction string  `json:"correction"`
	Shift      string  `json:"shift"`
	Violations int     `json:"violations"` // over every context
	// Sources are the raw data files decided on (set by the caller).
	Sources  []string        `json:"sources,omitempty"`
	Contexts []ContextReport `json:"contexts"`
}

// NewReport decides gs in every context of data (FromSummaries), in the
// order of the contexts' names.
func NewReport(gs []Guideline, data map[Context]Data, opt Options) Report {
	opt = opt.withDefaults()
	r := Report{Schema: schemaVersion, Alpha: opt.Alpha, Level: opt.Level, Test: testName, Correction: correctionName, Shift: shiftName}
	var ctxs []Context
	for c := range data {
		ctxs = append(ctxs, c)
	}
	slices.SortFunc(ctxs, func(a, b Context) int { return strings.Compare(a.String(), b.String()) })
	for _, c := range ctxs {
		cr := Decide(gs, c, data[c], opt)
		r.Violations += cr.Violations
		r.Contexts = append(r.Contexts, cr)
	}
	return r
}

// jnum is a float64 in JSON: NaN and ±Inf become null.
func jnum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// MarshalJSON writes the decision with NaN and infinite numbers as null.
func (d Decision) MarshalJSON() ([]byte, error) {
	type point struct {
		Call       string `json:"call"`
		MsizeBytes int    `json:"msize_bytes"`
	}
	return json.Marshal(struct {
		Guideline  string   `json:"guideline"`
		Text       string   `json:"text"`
		SizeBytes  int      `json:"size_bytes"`
		Lhs        point    `json:"lhs"`
		Rhs        point    `json:"rhs"`
		Mpiruns    int      `json:"mpiruns"`
		LhsMedianS any      `json:"lhs_median_s"`
		RhsMedianS any      `json:"rhs_median_s"`
		Ratio      any      `json:"ratio"`
		P          any      `json:"p"`
		PHolm      any      `json:"p_holm"`
		Stars      string   `json:"stars"`
		Violated   bool     `json:"violated"`
		ShiftS     any      `json:"shift_s"`
		ShiftLoS   any      `json:"shift_lo_s"`
		ShiftHiS   any      `json:"shift_hi_s"`
		ShiftLevel any      `json:"shift_confidence"`
		Method     string   `json:"method"`
		Warnings   []string `json:"warnings,omitempty"`
	}{d.Guideline, d.Text, d.SizeBytes, point{d.Lhs.Call, d.Lhs.MsizeBytes}, point{d.Rhs.Call, d.Rhs.MsizeBytes},
		d.Mpiruns, jnum(d.LhsMedianS), jnum(d.RhsMedianS), jnum(d.Ratio), jnum(d.P), jnum(d.PHolm), d.Stars,
		d.Violated, jnum(d.ShiftS), jnum(d.ShiftLoS), jnum(d.ShiftHiS), jnum(d.ShiftLevel), d.Method, d.Warnings})
}

// WriteJSON writes r, indented, in the format "reprobench-guidelines/1"
// (Report.Schema).
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes one table per context: guideline, size, the two
// medians, their ratio, the Hodges-Lehmann shift with its interval, p,
// Holm's p with stars, and the verdict.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, l := range [][2]string{{"test", r.Test}, {"correction", r.Correction}, {"shift", r.Shift}} {
		b.WriteString(wrap(l[0]+": "+l[1], 110, "    "))
	}
	fmt.Fprintf(&b, "alpha %g (family-wise, per context); intervals at %g%%\n", r.Alpha, 100*r.Level)
	for _, c := range r.Contexts {
		fmt.Fprintf(&b, "\n%s%d tests, %d violated; deciding needs ≥ %d paired mpiruns\n", wrap(c.Name, 110, "    "), c.Tests, c.Violations, c.MinMpiruns)
		fmt.Fprintf(&b, "%-24s %7s %4s %8s %8s %7s %25s %7s %10s %s\n",
			"guideline", "size", "mpir", "lhs", "rhs", "lhs/rhs", "shift lhs-rhs [CI]", "p", "p_holm", "verdict")
		for _, d := range c.Decisions {
			size := "any"
			if d.SizeBytes >= 0 {
				size = humanBytes(d.SizeBytes)
			}
			verdict := "ok"
			switch {
			case math.IsNaN(d.PHolm):
				verdict = "not decided"
			case d.Violated:
				verdict = "VIOLATED"
			}
			shift := "-"
			if !math.IsNaN(d.ShiftS) {
				shift = fmt.Sprintf("%s [%s, %s]", fmtSigned(d.ShiftS), fmtSigned(d.ShiftLoS), fmtSigned(d.ShiftHiS))
			}
			fmt.Fprintf(&b, "%-24s %7s %4d %8s %8s %7s %25s %7s %7s%-3s %s\n", d.Guideline, size, d.Mpiruns,
				fmtTime(d.LhsMedianS), fmtTime(d.RhsMedianS), fmtRatio(d.Ratio), shift, fmtP(d.P), fmtP(d.PHolm), d.Stars, verdict)
		}
		for _, wn := range c.Warnings {
			b.WriteString(wrap("warning: "+wn, 110, "    "))
		}
		for _, d := range c.Decisions {
			for _, wn := range d.Warnings {
				b.WriteString(wrap(fmt.Sprintf("warning: %s at %s: %s", d.Guideline, humanBytes(max(d.SizeBytes, 0)), wn), 110, "    "))
			}
		}
	}
	fmt.Fprintf(&b, "\n%d violation(s) in total\n", r.Violations)
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap breaks s at spaces, commas or slashes into lines of at most width
// characters (longer words stay whole), indenting the continuation lines;
// the result ends in a newline.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for len(s) > 0 {
		cut := len(s)
		if line+len(s) > width {
			cut = 0
			for i, r := range s {
				if i > width-line {
					break
				}
				if r == ' ' || r == ',' || r == '/' {
					cut = i + 1
				}
			}
			if cut == 0 {
				cut = strings.IndexAny(s, " ,/") + 1
				if cut == 0 {
					cut = len(s)
				}
			}
		}
		b.WriteString(strings.TrimRight(s[:cut], " "))
		s = s[cut:]
		if len(s) > 0 {
			b.WriteString("\n" + indent)
			line = len(indent)
		}
	}
	b.WriteString("\n")
	return b.String()
}

func fmtTime(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return analysis.FormatTime(v)
}

func fmtSigned(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "+inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v < 0:
		return "-" + analysis.FormatTime(-v)
	}
	return "+" + analysis.FormatTime(v)
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func fmtP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 1e-4:
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
