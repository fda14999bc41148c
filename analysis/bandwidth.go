package analysis

import (
	"math"
	"strconv"

	"github.com/reprobench/reprobench/factor"
)

// MessagesPerCall returns M, the messages of msize_bytes that one call of
// a bandwidth operation moves, for the group k: bw w, bibw 2·w, mbw_mr
// (np/2)·w, with w the group's bw_window column (docs/data-format.md,
// "Bandwidth and one-sided operations"). ok is false for
// other calls and for a group without a valid bw_window.
func MessagesPerCall(k GroupKey) (m float64, ok bool) {
	w, err := strconv.Atoi(k.LabelValue(factor.BWWindow.String()))
	if err != nil || w < 1 {
		return 0, false
	}
	switch k.Call {
	case "bw":
		return float64(w), true
	case "bibw":
		return 2 * float64(w), true
	case "mbw_mr":
		return float64(k.Np/2) * float64(w), true
	}
	return 0, false
}

// Rates converts t, a time per call in seconds (runtime_s, or a median of
// it), of a bandwidth group into its derived columns: bytes per second
// M·msize_bytes/t and messages per second M/t. Convert a median, not
// per-observation rates: the median commutes with this monotone
// conversion, a mean would not. ok is false for groups that are not
// bandwidth calls (MessagesPerCall) and for t ≤ 0 or NaN.
func Rates(k GroupKey, t float64) (bytesPerS, msgsPerS float64, ok bool) {
	m, ok := MessagesPerCall(k)
	if !ok || !(t > 0) || math.IsInf(t, 0) {
		return 0, 0, false
	}
	return m * float64(k.MsizeBytes) / t, m / t, true
}
