package analysis

// Names the external tests and examples use, unexported in the package.

var MpirunMedianCI = mpirunMedianCI
