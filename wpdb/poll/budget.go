package poll

import (
	"time"
)

// The poll feed's budget: the poller keeps at most Options.Budget of
// one database core busy. The cheap rounds and the gate reads between
// them take what they cost, up to half of it; the scan (or the delta) is
// paid from a token bucket that a quiet shop fills, so that it runs at
// once when an edit comes (scanDue), and, without the gate, from a period
// that adapts to its cost (scanPeriod).

// scanBudget is the share of the budget the scan may use: what the cheap
// rounds leave of it, and at least half of it, so that the scan does not
// starve when the rounds grow slow under load.
func (p *Poller) scanBudget() float64 {
	left := p.o.Budget - p.roundCost.Seconds()/p.o.Interval.Seconds()
	return max(left, p.o.Budget/2)
}

// detectBudget is the share of the budget the detection's bucket gets:
// the scan's, or where the delta is the detection, its part of it (the
// full scan behind it has the rest: delta.go).
func (p *Poller) detectBudget() float64 {
	if p.index != "" {
		return p.scanBudget() * (1 - fullShare)
	}
	return p.scanBudget()
}

// accrue adds to the bucket the scan's share of the budget since it was
// last filled (detectBudget).
func (p *Poller) accrue(now time.Time) {
	if !p.accrued.IsZero() && now.After(p.accrued) {
		p.tokens = min(p.tokens+now.Sub(p.accrued).Seconds()*p.detectBudget(), p.bucketCap(p.scanCost))
	}
	p.accrued = now
}

// bucketCap is the most the bucket banks: a scan, or the scan's share of
// the budget over MaxScan, whichever is more.
func (p *Poller) bucketCap(cost time.Duration) float64 {
	return max(cost.Seconds(), p.o.Budget*p.o.MaxScan.Seconds())
}

// scanPeriod is how often a scan costing cost may run to use at most budget
// of one core: cost/budget, never more often than every interval nor less
// often than every maxScan.
func scanPeriod(cost time.Duration, budget float64, interval, maxScan time.Duration) time.Duration {
	if budget <= 0 {
		return max(maxScan, interval)
	}
	period := time.Duration(float64(cost) / budget)
	return max(min(period, maxScan), interval)
}
