package tune

// Names the external tests and examples use, unexported in the package.

const DecisionsFormat = decisionsFormat
const DecisionsVersion = decisionsVersion

var ClopperPearsonUpper = clopperPearsonUpper
