package httpapi

import (
	"strconv"
	"time"
)

// Freshness is what a 200's Cache-Control lets the caches downstream do:
// browsers keep it MaxAge, shared caches (a CDN, Varnish, nginx) SMaxAge,
// and either may serve it stale while revalidating or while the origin
// fails. Every lifetime is capped at serve time so that no cache may hold a
// response past the instant it changes by the clock (a sale's start or
// end): stale included.
type Freshness struct {
	MaxAge               time.Duration
	SMaxAge              time.Duration
	StaleWhileRevalidate time.Duration
	StaleIfError         time.Duration
}

// DefaultFreshness: ten minutes in browsers, as the binding decisions ask
// of 200s (public, max-age=600); ten minutes at the edge, which the purge
// tags can clear sooner; a minute of background revalidation; a day of
// standing in for a failing origin, as catalogd's own cache does.
var DefaultFreshness = Freshness{MaxAge: 10 * time.Minute, SMaxAge: 10 * time.Minute,
	StaleWhileRevalidate: time.Minute, StaleIfError: 24 * time.Hour}

// cacheControl writes the Cache-Control of 200s.
type cacheControl struct {
	f    Freshness
	full []string      // the value when nothing caps it, shared read-only
	span time.Duration // the time ahead a response must stay true to get full
}

func newCacheControl(f Freshness) *cacheControl {
	cc := &cacheControl{f: f}
	cc.span = max(f.MaxAge, f.SMaxAge) + max(f.StaleWhileRevalidate, f.StaleIfError)
	cc.full = []string{cc.format(f.MaxAge, f.SMaxAge, f.StaleWhileRevalidate, f.StaleIfError)}
	return cc
}

// hdrNoStore is what a response past its own expiry gets, and a stale copy
// served while the database fails: nobody downstream may keep it.
var hdrNoStore = []string{"no-store"}

// header is the Cache-Control of a 200 that stops being true at until
// (zero: not by the clock), served at now. The remaining time caps every
// lifetime, and the stale ones come out of what is left after freshness:
// freshness plus staleness never reaches past until. Only a response
// within span of its expiry costs a formatting.
func (cc *cacheControl) header(until, now time.Time) []string {
	if until.IsZero() {
		return cc.full
	}
	left := until.Sub(now)
	if left >= cc.span {
		return cc.full
	}
	left = left.Truncate(time.Second) // a cache counts whole seconds
	if left <= 0 {
		return hdrNoStore
	}
	ma, sma := min(cc.f.MaxAge, left), min(cc.f.SMaxAge, left)
	rest := left - max(ma, sma)
	return []string{cc.format(ma, sma, min(cc.f.StaleWhileRevalidate, rest), min(cc.f.StaleIfError, rest))}
}

// format spells the directives, leaving out zero stale lifetimes.
func (cc *cacheControl) format(ma, sma, swr, sie time.Duration) string {
	var buf [128]byte
	b := append(buf[:0], "public, max-age="...)
	b = strconv.AppendInt(b, int64(ma/time.Second), 10)
	b = append(b, ", s-maxage="...)
	b = strconv.AppendInt(b, int64(sma/time.Second), 10)
	if swr >= time.Second {
		b = append(b, ", stale-while-revalidate="...)
		b = strconv.AppendInt(b, int64(swr/time.Second), 10)
	}
	if sie >= time.Second {
		b = append(b, ", stale-if-error="...)
		b = strconv.AppendInt(b, int64(sie/time.Second), 10)
	}
	return string(b)
}
