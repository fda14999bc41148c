// Package report makes one self-contained HTML page of a benchmark
// campaign, or of two compared, that a reader can judge without any other
// file: what was measured and how often, the headline medians with their
// confidence intervals (package analysis, Hunold & Carpen-Amarie 2016, Algorithm 6), every group's
// distribution and the spread from one mpirun to the next (package plots,
// inline SVG), the comparison of B with A (ratios, shifts, Wilcoxon stars),
// the method (process and clock synchronization with the stated error
// bound, windows and their invalid share, warm-up, the timer's resolution
// and overhead), the machine with the commands that reproduce the
// campaign, and the twelve rules of Hoefler and Belli (Hoefler & Belli 2015,
// "Scientific Benchmarking of Parallel Computing Systems", SC15), each
// checked against the data.
//
// # Inputs
//
// Load reads raw files and finds, beside each, the metadata sidecar of
// every mpirun it holds (package rawdata) and the campaign manifest of its
// run id (package campaign); the design file a sidecar names gives the
// design command. Whatever is missing is listed, not fatal: the page then
// says what it could not check. Sidecar records this package does not know
// field by field (a clock synchronization's result) are read generically,
// so that fields added later are shown too.
//
// # The rules
//
// A rule is met, partly met or not met by what the data show; what the
// data cannot show (a performance bound, rule 11; the reason for using
// part of a machine, rule 2, when the sidecars do not record its CPUs) is
// marked NotShown, never Met; rules about what was not done (no speedup,
// rule 1; no comparison, rule 7) are NotApplicable. Each status comes with
// its evidence in numbers: "CIs of the median in every group, from 5
// mpiruns per group, but at only 93.8% confidence".
//
// # The page
//
// WriteHTML writes HTML with inline CSS and inline SVG, no script, and a
// Content-Security-Policy that forbids every load, so it opens from a file
// in any browser and can be archived beside the raw data. Figures draw
// densities and per-mpirun summaries, never a mark per observation, so a
// page of 18 groups stays a few hundred kilobytes however many
// observations they hold. Chromium renders it in the tests.
package report
