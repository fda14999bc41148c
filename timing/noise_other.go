//go:build !linux

package timing

import "errors"

var errNoPinning = errors.New("pinning threads to CPUs needs Linux")

func allowedCPUs() ([]int, error) { return nil, errNoPinning }

func pinThread(int) error { return errNoPinning }
