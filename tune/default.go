package tune

// DefaultCandidate is the name of the library's own choice among the
// candidates: the level of the algorithm factor that sets nothing.
const DefaultCandidate = "default"
