package catalog

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling thread has run: on a machine whose
// cores other work shares, a measure of a call's own cost the wall clock
// is not.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
