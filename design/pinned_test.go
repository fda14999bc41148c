package design

// pinnedOrder is the order of Generate(Plan{Factors: Factors{Nreps: 1..6},
// Mpiruns: 2, Seed: 2024}), recorded when the generator was written.
var pinnedOrder = [][]int{{5, 3, 4, 1, 0, 2}, {0, 5, 1, 3, 4, 2}}
