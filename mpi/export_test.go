package mpi

// Names the external tests and examples use, unexported in the package.

const TagDissemination = tagDissemination
const TagPingPong = tagPingPong
