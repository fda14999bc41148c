package timing

import (
	"reflect"
	"time"
)

// Sleeper is implemented by clocks whose time passes only when their owner
// acts, such as a simulated rank's clock (package mpitest): Sleep advances
// the clock's own time by d, as if the process computed or slept for d, and
// never waits in real time.
type Sleeper interface {
	Sleep(d time.Duration)
}

// SleepFunc returns how to wait on c's time axis: the Sleep of c, or of the
// clock c wraps (a Skewed clock's Base, or the Base() of a clock that has
// one, such as clocksync.GlobalClock), when that clock is a Sleeper; nil
// for a real clock, on which callers wait with time.Sleep or keep working.
// Code that waits between readings of a clock asks it, so that a simulation
// never sleeps in real time because an option was forgotten.
func SleepFunc(c Clock) func(time.Duration) {
	for range 16 { // wrappers of wrappers, never a cycle
		if c == nil {
			return nil
		}
		if v := reflect.ValueOf(c); v.Kind() == reflect.Pointer && v.IsNil() {
			return nil
		}
		switch v := c.(type) {
		case Sleeper:
			return v.Sleep
		case *Skewed:
			c = v.Base
		case interface{ Base() Clock }:
			c = v.Base()
		default:
			return nil
		}
	}
	return nil
}

// Sleep waits d on c's time axis: SleepFunc(c)'s wait for a simulated
// clock, time.Sleep otherwise.
func Sleep(c Clock, d time.Duration) {
	if f := SleepFunc(c); f != nil {
		f(d)
		return
	}
	time.Sleep(d)
}
