// Package analysis turns raw benchmark observations into the numbers and
// tests a reader can trust: summaries, outlier filtering, confidence
// intervals, hypothesis tests, autocorrelation, a stopping rule for the
// number of measurements, and the per-mpirun analysis and the
// reproducibility metric of Hunold & Carpen-Amarie 2016 (Algorithm 6,
// §6.3).
//
// The package never imports MPI code: every method is a plain function over
// []float64 in the style of gonum's stat package, and the raw-data reader
// (ReadRaw) only knows the tidy CSV contract written by the engine.
//
// # Statistical choices
//
// Following Hoefler and Belli (Hoefler & Belli 2015, Rules 3–8) nothing is assumed about
// the distribution of run times unless the caller says so:
//
//   - The center is the median; quantiles use R's default definition (type 7,
//     linear interpolation between order statistics). gonum's stat.Quantile
//     with LinInterp is type 4 and is not used.
//
//   - The confidence interval of the median (and any quantile) is
//     nonparametric, from binomial order statistics (Hoefler & Belli 2015, §3.1.3, Le
//     Boudec): exact ranks from the binomial distribution for n ≤
//     exactRankLimit, the normal approximation with the *positive* quantile
//     z = Φ⁻¹(1−α/2) above, widened until the achieved confidence (computed
//     from the binomial distribution) is at least the requested one. With too
//     few observations no interval exists and the result says so.
//
//   - The headline median of a group that ran in m ≥ 2 mpiruns is the
//     median of the m per-mpirun medians, with MpirunMedianCI as its
//     interval; the pooled median of all observations is kept as
//     GroupSummary.PooledMedian. See "The headline median" below.
//
//   - The confidence interval of the mean uses Student's t and is only
//     meaningful for approximately normal data; ShapiroWilk (Royston's
//     algorithm AS R94) checks that.
//
//   - Two samples are compared with the Wilcoxon rank-sum (Mann-Whitney U)
//     test: exact null distribution for fewer than 50 observations per side
//     without ties, otherwise the normal approximation with tie and
//     continuity correction, as R's wilcox.test does. Paired samples (two
//     label values that ran in the same mpiruns) can use the Wilcoxon
//     signed-rank test instead (WilcoxonSignedRank, the same rules as R's
//     wilcox.test(paired = TRUE); Options.PairByMpirun).
//
//   - Outliers are removed by Tukey's fences (Q1 − k·IQR, Q3 + k·IQR) per
//     mpirun and the number removed is always reported. DefaultOptions
//     sets k = 1.5, the method of Alg. 6, although Hoefler & Belli 2015
//     (§3.1.3) advise keeping outliers and using robust measures; k = 0
//     keeps them. Every statistic but the tail percentiles describes the
//     kept observations.
//
//   - Alg. 6 of Hunold & Carpen-Amarie 2016 groups observations by (call, msize_bytes, np,
//     datatype, labels), filters each mpirun separately, and compares the
//     distributions of per-mpirun medians with the Wilcoxon test, marking
//     p ≤ 0.05, 0.01, 0.001 with *, **, ***.
//
//   - Two data sets A and B are compared group by group (Compare). A label
//     with one value in all of A and another in all of B (lib=openmpi vs
//     lib=mpich) names the sides rather than a factor inside them
//     (SideLabels); groups are matched without it (CompareIgnoring) and
//     its values become the sides' names. Each comparison reports two
//     ratios, each with its own interval: the ratio of medians
//     (Comparison.Ratio, MedianRatioCI: exact order statistics, no
//     assumption on shape) and the Hodges-Lehmann ratio (RatioShift,
//     RatioCI: exp of the Hodges-Lehmann estimate and interval of
//     log B − log A, which assume B is A scaled), and the Hodges-Lehmann
//     shift, not only the p-value.
//
//   - Quantile regression with a group dummy (Hoefler & Belli 2015, §3.2.3) reduces to
//     differences of empirical quantiles; QuantileRegression computes those
//     exactly and their intervals from the two order-statistic intervals.
//
// # The headline median
//
// Observations of one mpirun are not independent of that mpirun: a rerun
// of the same benchmark can move every observation by the same factor
// (Hunold & Carpen-Amarie 2016, §5.2, Hunold et al. 2014: the mpirun is a factor). An interval
// computed from the pooled observations (PooledMedianCI) shrinks with the
// number of observations and ignores that variation; in the simulation of
// TestHeadlineCoverageWithMpirunVariation (per-mpirun levels ±20 %,
// observations ±5 % around them) its nominal 95 % covers the true median
// in 13–21 % of the runs.
//
// The m per-mpirun medians are the independent samples (Alg. 6 line 10),
// so the headline uses them: the median of the m medians, and the exact
// binomial order-statistic interval of quantileCI on them. It needs no
// assumption about the distribution of the medians (unlike a t interval),
// is exact for any m (unlike a cluster bootstrap over mpiruns, which is
// only asymptotically right and markedly too narrow for the 5–10 mpiruns
// of a typical campaign), and needs no random seed. Its price is that
// small m cannot reach every level: the widest interval, [min, max] of
// the medians, has confidence 1 − 2·0.5^m, i.e. 93.75 % for m = 5; 95 %
// needs m ≥ 6 (96.9 %). For m < 6 MpirunMedianCI returns [min, max] with
// its true confidence in Interval.Confidence and a warning naming the
// number of mpiruns needed, instead of claiming a level it does not reach.
// The simulation checks coverage ≥ the claimed confidence for m = 5, 6,
// 10 and 20.
//
// With a single mpirun there is nothing else to use: the headline is the
// pooled median and its interval, with a warning that the result may not
// be reproducible across mpiruns.
//
// # Validation
//
// Every test and interval is checked against R 4.2.2 (testdata/reference.R
// and its output testdata/reference.csv, on samples with ties, n = 1…5,
// n = 30, n = 5000, skewed and bimodal data) to 1e-6 relative, or 1e-14
// absolute for p-values R computes as 1 − (something close to 1). One
// documented difference: for the normal-approximation Hodges-Lehmann
// interval R finds roots with uniroot(tol = 1e-4), we bisect to machine
// precision — agreement is within R's tolerance. R's quantreg
// package is not installed here, so quantile regression is checked through
// its reduction to type-1 sample quantiles. Property tests check by
// simulation that intervals reach their nominal coverage and that p-values
// are uniform under H0.
//
// Caller bugs (mismatched lengths, a level outside (0,1)) panic with a
// message starting "analysis:"; empty or NaN input gives NaN results and a
// warning; I/O and malformed data are errors.
package analysis
