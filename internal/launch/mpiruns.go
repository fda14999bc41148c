package launch

import (
	"math"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/rawdata"
)

// MpirunRule returns rule with the defaults of an adaptive number of
// mpiruns: its zero Min and Max become analysis.DefaultMpirunStopMin and
// DefaultMpirunStopMax (mpiruns, not observations), and the quantile is
// the median, whose headline interval is judged.
func MpirunRule(rule analysis.StopRule) analysis.StopRule {
	if rule.Min == 0 {
		rule.Min = analysis.DefaultMpirunStopMin
	}
	if rule.Max == 0 {
		rule.Max = max(analysis.DefaultMpirunStopMax, rule.Min)
	}
	rule.Quantile = 0.5
	return rule.WithDefaults()
}

// MpirunJudge returns the campaign.Judge of "launch --mpiruns auto": it
// reads the raw data of the campaign's complete mpiruns, analyses them
// with analysis.DefaultOptions (Hunold & Carpen-Amarie 2016, Alg. 6), and
// judges each group's per-mpirun medians with rule (MpirunRule): the
// order-statistic interval of their median, the headline interval, at
// rule.IntervalLevel must lie within ±Width of it. The mpirun is the
// unit (Hunold, Carpen-Amarie & Träff 2014): observations of one mpirun
// are not independent samples of what another mpirun measures. The look
// is met when every group is within the width.
func MpirunJudge(rule analysis.StopRule) campaign.Judge {
	rule = MpirunRule(rule)
	return func(m *campaign.Manifest) (campaign.AutoMpiruns, error) {
		a := campaign.AutoMpiruns{Rule: rawdata.StopRuleQuantileCI, Width: rule.Width, Level: rule.Level,
			IntervalLevel: rule.IntervalLevel(), Min: rule.Min, Max: rule.Max}
		var files []string
		for i := range m.Mpiruns {
			if m.Runs[i].Complete {
				files = append(files, rawdata.OutputBase(m.Dir, m.RunID, i)+".csv")
			}
		}
		d := analysis.NewDataset()
		if err := d.ReadFiles(files...); err != nil {
			return a, err
		}
		sums := analysis.Analyze(d, analysis.DefaultOptions)
		a.Met = len(sums) > 0
		for _, s := range sums {
			if len(s.MpirunMedians) == 0 {
				a.Met = false // no valid observation in any mpirun yet
				continue
			}
			c := rule.Judge(s.MpirunMedians)
			g := campaign.AutoGroup{Group: s.Key.String(), Mpiruns: len(s.MpirunMedians), MedianS: c.Estimate, Within: c.Within}
			if !math.IsNaN(c.Lo) {
				g.CILoS, g.CIHiS, g.Reached = &c.Lo, &c.Hi, &c.Reached
			}
			a.Met = a.Met && c.Within
			a.Groups = append(a.Groups, g)
		}
		return a, nil
	}
}
