package tune

import (
	"encoding/json"
	"io"
	"math"
)

// decisionsFormat and decisionsVersion name the sidecar WriteDecisionsJSON
// writes; a reader checks both.
const (
	decisionsFormat  = "reprobench-tune-decisions"
	decisionsVersion = 1
)

// WriteDecisionsJSON writes ds and src as the JSON sidecar of a decision
// file (Open MPI's rules or MPICH's selection JSON, named by forFile):
// per cell the verdict, the chosen candidate and every candidate's time
// ratio to the default with its interval, p-values and mpirun counts,
// and the data the decisions came from. NaN values are written as null.
func WriteDecisionsJSON(w io.Writer, ds []Decision, src Source, forFile string) error {
	type ratio struct {
		Estimate any     `json:"estimate"`
		Lo       any     `json:"lo"`
		Hi       any     `json:"hi"`
		Level    float64 `json:"level"`
		Warning  string  `json:"warning,omitempty"`
	}
	type cand struct {
		Name    string  `json:"name"`
		N       int     `json:"mpiruns"`
		MedianS float64 `json:"median_s"`
		Ratio   ratio   `json:"ratio_to_default"`
		P       any     `json:"p"`
		PHolm   any     `json:"p_holm"`
		MinP    any     `json:"min_attainable_p"`
		Faster  bool    `json:"faster"`
		Need    int     `json:"need_mpiruns_80pct_power"`
		Reason  string  `json:"reason"`
	}
	type cell struct {
		Call        string  `json:"call"`
		Bytes       int64   `json:"msize_bytes"`
		Np          int     `json:"np"`
		Default     string  `json:"default"`
		Chosen      string  `json:"chosen"`
		Verdict     Verdict `json:"verdict"`
		DefaultN    int     `json:"default_mpiruns"`
		DefaultMed  float64 `json:"default_median_s"`
		Candidates  []cand  `json:"candidates"`
		Family      string  `json:"family"`
		FamilySize  int     `json:"family_size"`
		Threshold   float64 `json:"threshold"`
		Alpha       float64 `json:"alpha"`
		NeedMpiruns int     `json:"need_mpiruns_per_candidate"`
		Reason      string  `json:"reason"`
	}
	out := struct {
		Format    string `json:"format"`
		Version   int    `json:"version"`
		For       string `json:"for,omitempty"`
		Method    string `json:"method"`
		Source    Source `json:"source"`
		Decisions []cell `json:"decisions"`
	}{Format: decisionsFormat, Version: decisionsVersion, For: forFile, Source: src,
		Method:    "per-mpirun medians; one-sided Wilcoxon rank-sum of H0 default/candidate <= 1+threshold (analysis.SlowdownTest), Holm over the family; ratio = Hodges-Lehmann candidate/default time with its rank-sum interval",
		Decisions: []cell{}}
	for _, d := range ds {
		c := cell{Call: d.Call, Bytes: d.Bytes, Np: d.Np, Default: d.Default, Chosen: d.Chosen, Verdict: d.Verdict,
			DefaultN: d.DefaultN, DefaultMed: d.DefaultMedian.Seconds(), Candidates: []cand{}, Family: d.Family.String(), FamilySize: d.FamilySize,
			Threshold: d.Threshold, Alpha: d.Alpha, NeedMpiruns: d.NeedMpiruns, Reason: d.Reason}
		for _, x := range d.Candidates {
			c.Candidates = append(c.Candidates, cand{Name: x.Name, N: x.N, MedianS: x.Median.Seconds(),
				Ratio: ratio{num(x.Ratio), num(x.RatioCI.Lo), num(x.RatioCI.Hi), x.RatioCI.Level, x.RatioCI.Warning},
				P:     num(x.P), PHolm: num(x.PHolm), MinP: num(x.MinP), Faster: x.Faster, Reason: x.Reason, Need: x.NeedMpiruns})
		}
		out.Decisions = append(out.Decisions, c)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// num is v, or nil (JSON null) when v is NaN or infinite.
func num(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}
