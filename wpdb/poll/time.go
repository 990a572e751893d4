package poll

import (
	"fmt"
	"time"
)

// MySQL DATETIME texts as the poller compares them: packed into a number
// that orders as the times do (the scan keeps one per post, pointer-free:
// see scanState), and back into a time for the settle's arithmetic.

// packTime turns a MySQL DATETIME text ("2026-11-21 12:00:00") into its
// digits as a number (20261121120000), which orders as the times do; 0 for
// the zero date or text that is not one.
func packTime(s string) int64 {
	var n int64
	digits := 0
	for i := 0; i < len(s) && digits < 14; i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			n = n*10 + int64(c-'0')
			digits++
		}
	}
	if digits != 14 {
		return 0
	}
	return n
}

// unpackTime is packTime's number as a time (UTC); zero for 0.
func unpackTime(n int64) time.Time {
	if n <= 0 {
		return time.Time{}
	}
	t, err := time.Parse("20060102150405", fmt.Sprint(n))
	if err != nil {
		return time.Time{}
	}
	return t
}

// addSeconds adds seconds to a MySQL DATETIME text; "" when it is not one.
func addSeconds(s string, sec int) string {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		return ""
	}
	return t.Add(time.Duration(sec) * time.Second).Format(time.DateTime)
}
