package catalog

import (
	"strconv"
	"strings"
	"time"
)

// window is what the clock-dependent rules need of a price set: whether it
// has a sale price, whether that is below the regular price, and the sale
// dates (Unix seconds) when set.
type window struct {
	hasSale, below, hasFrom, hasTo bool
	from, to                       int64
}

func (p *prices) window() window {
	w := window{hasSale: p.sale != "", below: priceLess(p.sale, p.regular)}
	if t, ok := saleBound(p.from); ok {
		w.hasFrom, w.from = true, t.Unix()
	}
	if t, ok := saleBound(p.to); ok {
		w.hasTo, w.to = true, t.Unix()
	}
	return w
}

// saleBound reads a sale date meta: a UTC Unix timestamp, as WooCommerce
// 3.0+ stores it; very old shops stored a Y-m-d date. ok is false when the
// bound is not set.
func saleBound(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), n != 0
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// onSale is WC_Product::is_on_sale() for a product or variation with its
// own prices: a sale price below the regular price, and now inside the sale
// dates, both ends inclusive to the second. The dates are read now, not
// trusted to the _price that a background job rewrites with a lag.
func (w *window) onSale(now time.Time) bool {
	if !w.below {
		return false
	}
	if w.hasFrom && time.Unix(w.from, 0).After(now) {
		return false
	}
	if w.hasTo && time.Unix(w.to, 0).Before(now) {
		return false
	}
	return true
}

// saleChange is the next instant after now at which onSale can change by
// the clock alone: the start of the sale, or the second after its end (the
// end is inclusive). Zero when neither lies ahead.
func (w *window) saleChange(now time.Time) time.Time {
	if !w.hasSale {
		return time.Time{}
	}
	var next time.Time
	if from := time.Unix(w.from, 0); w.hasFrom && from.After(now) {
		next = from
	}
	if end := time.Unix(w.to+1, 0); w.hasTo && end.After(now) {
		next = earliest(next, end)
	}
	return next
}

// salePassed is the last instant at or before now at which onSale changed
// by the clock alone: the start of the sale or the second after its end.
// The response changed then without any post being saved.
func (w *window) salePassed(now time.Time) time.Time {
	if !w.hasSale {
		return time.Time{}
	}
	var last time.Time
	if from := time.Unix(w.from, 0); w.hasFrom && !from.After(now) {
		last = from
	}
	if end := time.Unix(w.to+1, 0); w.hasTo && !end.After(now) {
		last = latest(last, end)
	}
	return last
}

// earliest is the earlier of two instants, a zero one meaning "never".
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}
