package mpi

import "fmt"

// The argument checks of every Comm implementation: the cgo binding and
// package mpitest call these, so both reject the same input with the same
// *Error (Code −1, detected in Go before MPI is called).

func argErr(fn, format string, args ...any) error {
	return &Error{Func: fn, Code: -1, Msg: fmt.Sprintf(format, args...)}
}

// checkPeer validates a peer rank for a communicator of size size.
func checkPeer(fn string, size, peer int) error {
	if peer < 0 || peer >= size {
		return argErr(fn, "rank %d out of range [0,%d)", peer, size)
	}
	return nil
}

// checkTag validates a point-to-point tag: [0, TagInternal) (the tags from
// TagReserved on are reprobench's own; see TagReserved).
func checkTag(fn string, tag int) error {
	if tag < 0 || tag >= TagInternal {
		return argErr(fn, "tag %d out of range [0,%d)", tag, TagInternal)
	}
	return nil
}

// CheckP2P validates the peer and tag of a point-to-point call.
func CheckP2P(fn string, size, peer, tag int) error {
	if err := checkPeer(fn, size, peer); err != nil {
		return err
	}
	return checkTag(fn, tag)
}

// CheckColl validates the arguments every collective shares and returns the
// size in bytes of count elements of dt.
func CheckColl(fn string, size, count int, dt Datatype, root int) (int, error) {
	if count < 0 {
		return 0, argErr(fn, "negative count %d", count)
	}
	if !dt.Valid() {
		return 0, argErr(fn, "invalid datatype %v", dt)
	}
	if root < 0 || root >= size {
		return 0, argErr(fn, "root %d out of range [0,%d)", root, size)
	}
	return count * dt.Size(), nil
}

// CheckBuffer validates that buffer b (named which: "send", "receive", or
// "" for Bcast's one buffer) holds at least n bytes.
func CheckBuffer(fn, which string, b []byte, n int) error {
	if len(b) < n {
		if which != "" {
			which += " "
		}
		return argErr(fn, "%sbuffer has %d bytes, need %d", which, len(b), n)
	}
	return nil
}

// CheckOp validates a reduction of dt by op (CheckReduce, as an *Error of fn).
func CheckOp(fn string, dt Datatype, op ReduceOp) error {
	if err := CheckReduce(dt, op); err != nil {
		return argErr(fn, "%v", err)
	}
	return nil
}
