//go:build !linux

package timing

import "errors"

var errNoPinning = errors.New("pinning threads to CPUs needs Linux")

// AllowedCPUs lists the CPUs this process may run on; it needs Linux.
func AllowedCPUs() ([]int, error) { return nil, errNoPinning }

func pinThread(int) error { return errNoPinning }
