package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// Config describes a synthetic campaign.
type Config struct {
	RunID   string
	Mpiruns int
	Reps    int // observations per (mpirun, experiment)
	Calls   []string
	Msizes  []int
	Np      int
	// Label, if not empty, adds a label column with the given values; each
	// value multiplies the run time by the matching Factor.
	Label       string
	LabelValues []string
	Factors     []float64
	// MpirunSD is the log-normal sd of the per-mpirun factor (Hunold et al. 2014:
	// the mpirun is a factor); NoiseSD the log-normal sd per observation.
	MpirunSD, NoiseSD float64
	InvalidFrac       float64 // fraction of rows with errorcode 1
	OutlierFrac       float64 // fraction of rows multiplied by 10
	Seed              uint64
	NoHeader          bool
}

// Rows returns how many data rows Write produces.
func (c Config) Rows() int {
	nl := max(1, len(c.LabelValues))
	return c.Mpiruns * c.Reps * len(c.Calls) * len(c.Msizes) * nl
}

// Write writes the campaign to w.
func Write(w io.Writer, c Config) error {
	rng := rand.New(rand.NewPCG(c.Seed, 42))
	bw := bufio.NewWriterSize(w, 1<<20)
	if !c.NoHeader {
		fmt.Fprint(bw, "run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode")
		if c.Label != "" {
			fmt.Fprint(bw, ","+c.Label)
		}
		fmt.Fprintln(bw)
	}
	labels := c.LabelValues
	if c.Label == "" {
		labels = []string{""}
	}
	buf := make([]byte, 0, 256)
	for mp := 0; mp < c.Mpiruns; mp++ {
		mpf := math.Exp(rng.NormFloat64() * c.MpirunSD)
		exp := 0
		for li, lv := range labels {
			f := 1.0
			if li < len(c.Factors) {
				f = c.Factors[li]
			}
			for ci, call := range c.Calls {
				for _, ms := range c.Msizes {
					base := (1e-6 + float64(ms)*1e-9) * float64(ci+1) * f * mpf
					for rep := 0; rep < c.Reps; rep++ {
						rt := base * math.Exp(rng.NormFloat64()*c.NoiseSD)
						ec := 0
						if rng.Float64() < c.OutlierFrac {
							rt *= 10
						}
						if rng.Float64() < c.InvalidFrac {
							ec = 1
						}
						buf = buf[:0]
						buf = append(buf, c.RunID...)
						buf = append(buf, ',')
						buf = strconv.AppendInt(buf, int64(mp), 10)
						buf = append(buf, ',')
						buf = strconv.AppendInt(buf, int64(exp), 10)
						buf = append(buf, ',')
						buf = append(buf, call...)
						buf = append(buf, ',')
						buf = strconv.AppendInt(buf, int64(ms), 10)
						buf = append(buf, ',')
						buf = strconv.AppendInt(buf, int64(max(1, ms/4)), 10)
						buf = append(buf, ",MPI_INT,"...)
						buf = strconv.AppendInt(buf, int64(c.Np), 10)
						buf = append(buf, ',')
						buf = strconv.AppendInt(buf, int64(rep), 10)
						buf = append(buf, ',')
						buf = strconv.AppendFloat(buf, rt, 'g', 9, 64)
						buf = append(buf, ',')
						buf = strconv.AppendInt(buf, int64(ec), 10)
						if c.Label != "" {
							buf = append(buf, ',')
							buf = append(buf, lv...)
						}
						buf = append(buf, '\n')
						if _, err := bw.Write(buf); err != nil {
							return err
						}
					}
					exp++
				}
			}
		}
	}
	return bw.Flush()
}
