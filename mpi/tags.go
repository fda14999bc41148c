package mpi

// Message tags. MPI guarantees tags up to at least 32767; reprobench
// divides them into three ranges:
//
//	[0, TagReserved)            user code (mpi.Comm's Send, Recv, Sendrecv, …)
//	[TagReserved, TagInternal)  reprobench's own Go packages: TagClockSync…
//	                            (package clocksync), tagPingPong and
//	                            tagDissemination (this package's Go paths)
//	[TagInternal, …)            the C side of the binding (refused by Comm)
//
// Code that communicates while a clock synchronization, a Go ping-pong or a
// dissemination barrier runs on the same communicator must stay below
// TagReserved; the binding cannot tell the two Go ranges apart, so this is a
// documented contract, checked by this package's and clocksync's tests.
const (
	// TagReserved is the first tag reserved for reprobench's packages.
	TagReserved = 31744
	// TagClockSync is the first of the 16 tags package clocksync uses.
	TagClockSync = TagReserved + 0x50
	// TagClockSyncEnd is one past clocksync's last tag.
	TagClockSyncEnd = TagClockSync + 16
	// TagPrehistory is the tag of package reprobench's prehistory: the empty
	// one-way messages of the opt-in design factor
	// (engine.Experiment.PrehistoryMsgs).
	TagPrehistory = TagReserved + 0x72
	// TagRegion is the first of the 4 tags package region uses at Close
	// (the tree that merges the region names, the per-rank rows).
	TagRegion = TagReserved + 0x80
)

// The reserved range must end where the C side's begins.
const _ = uint(TagInternal - TagReserved - 256)
