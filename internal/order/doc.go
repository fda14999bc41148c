// Package order holds the order statistics that several packages need
// without depending on package analysis (and on gonum through it): the
// type-7 quantile, the median that every package of the module uses, and
// the index of the lower median for callers that must keep a real
// observation.
package order
