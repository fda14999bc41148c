package guidelines

// Names the external tests and examples use, unexported in the package.

var MinMpiruns = minMpiruns
