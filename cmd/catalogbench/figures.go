package main

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// figures are one quantity's measurements, one per run.
type figures []float64

func (f figures) median() float64 {
	s := slices.Clone(f)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// format gives the median and, with more than one run, the spread.
func (f figures) format(prec int) string {
	if len(f) == 0 {
		return "—"
	}
	m := strconv.FormatFloat(f.median(), 'f', prec, 64)
	if len(f) == 1 {
		return m
	}
	return fmt.Sprintf("%s (%s–%s)", m, strconv.FormatFloat(slices.Min(f), 'f', prec, 64),
		strconv.FormatFloat(slices.Max(f), 'f', prec, 64))
}

func pct(d []time.Duration, p float64) time.Duration {
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
