// Package clocksim runs a clock synchronization algorithm and its accuracy
// harness on a simulated world (package mpi/mpitest), where the true offset of
// every clock is known. It is what the tests of clocksync, the scaling
// experiments in bench/clocksync and users checking their own parameters
// share; clocksync itself stays free of the simulator.
package clocksim
