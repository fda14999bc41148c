// Package plots draws the figures of the analysis with gonum/plot: the
// run-time distributions of groups (box or violin, with the headline
// median and its confidence interval), each mpirun's median and spread
// (Mpiruns), a group's histogram, normal Q-Q plot, autocorrelation and
// drift over time, the comparison of two data sets with its stars, and the
// quantile regression of Hoefler & Belli 2015, §3.2.3.
//
// Every constructor takes what package analysis computed (a Dataset, its
// GroupSummary rows, Comparison rows) and returns a finished Figure: the
// plot, the size it was laid out for, and warnings for the reader. A
// Figure is saved as PNG, SVG or PDF (Save, Encode) or rendered to SVG
// bytes (SVG), which "reprobench report" inlines into its page. The layout
// is made to be read: group labels in human units (8 B, 32 KiB) without
// the parts every group shares, which go to the title; one row of about a
// third of an inch per group; a log run-time axis with a unit on every
// tick when the medians span more than a decade; titles wrapped to the
// width; tick markers bounded on any data (the fuzz targets check it).
//
// "reprobench plot" is this package behind flags.
package plots
