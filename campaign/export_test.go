package campaign

// Names the external tests and examples use, unexported in the package.

type SizeError = sizeError

var CompactList = compactList
var ExpandList = expandList
var ShellJoin = shellJoin
