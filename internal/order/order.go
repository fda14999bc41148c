// Package order holds order statistics that several packages need without
// depending on package analysis (and on gonum through it).
package order

import "math"

// Quantile is the p-quantile of sorted, non-empty s by linear
// interpolation between order statistics: R's default quantile(type = 7).
// Its arguments are in the order of analysis.Quantile(p, x).
func Quantile(p float64, s []float64) float64 {
	h := p * float64(len(s)-1)
	i := int(math.Floor(h))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}
