// Package vcluster builds a cluster on one machine: N nodes, each a network,
// UTS and time namespace with its own host name and a known CLOCK_MONOTONIC
// offset, joined by a bridge on private addresses, and launches real MPI
// across them with the libraries' own launchers (Open MPI's mpirun with a
// hostfile and an rsh agent that enters a node's namespaces instead of ssh;
// MPICH's hydra with -launcher ssh -launcher-exec and the same agent).
//
// Every node's clock is the host's CLOCK_MONOTONIC plus a known offset, so
// the true offset between any two ranks is known exactly
// (clocksync.Harness.ShareHostClock). A node's drift comes from
// timing.Skewed: the agent exports clocksync.NodeSkewEnv with the node's ppm
// into every process it starts there, and clocksync.NodeSkew applies it.
//
// Nothing of the cluster lives in the host's network namespace: the bridge
// is inside a switch namespace of its own and each veth pair joins a node to
// it, so traffic stays between namespaces the cluster created. Every name
// starts with Prefix and the cluster's id; Close removes what the cluster
// made (processes in its namespaces, namespaces, mounts, files), and Clean
// removes what a crashed run left, by prefix, only for owners that are gone.
//
// It needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN), ip, unshare and nsenter from
// util-linux, and a kernel with time namespaces (5.6+). Available says why
// not.
package vcluster
