package httpapi

import (
	"net/http"
	"strconv"
	"strings"
)

// Content negotiation: the one reader of q-values (RFC 9110 §12.4.2), for
// Accept-Encoding (whether the gzip copy may be sent).

// parseQ reads a qvalue: "0" or "1", optionally followed by a dot and
// digits, at most 1. More than the three decimals the grammar allows are
// tolerated ("0.0000" is still 0); anything else is malformed.
func parseQ(s string) (float64, bool) {
	if s == "" || s[0] != '0' && s[0] != '1' {
		return 0, false
	}
	if len(s) > 1 {
		if s[1] != '.' {
			return 0, false
		}
		for i := 2; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
		}
	}
	q, err := strconv.ParseFloat(s, 64)
	if err != nil || q > 1 {
		return 0, false
	}
	return q, true
}

// weightOf finds the q parameter among a list member's parameters (the
// text after its first ";"): 1 when there is none, ok false when it is
// malformed. Parameter names are case-insensitive.
func weightOf(params string) (q float64, ok bool) {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		name, value, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			return parseQ(strings.TrimSpace(value))
		}
	}
	return 1, true
}

// acceptsGzip reports whether the request's Accept-Encoding lets the gzip
// copy be sent (RFC 9110 §12.5.3): gzip (or x-gzip) named with a weight
// above 0, or else "*" with one, and not below an explicit weight for
// identity. Codings are case-insensitive; a member with a malformed
// weight is ignored. No header at all is answered with identity: clients
// that do not ask for gzip (curl, scripts) get plain JSON.
func acceptsGzip(r *http.Request) bool {
	// What browsers, curl, Go and the CDNs send, each once, is answered
	// without parsing: every form below names gzip with no weight.
	if v := r.Header["Accept-Encoding"]; len(v) == 1 {
		if _, ok := commonGzipForms[v[0]]; ok {
			return true
		}
	}
	return parseAcceptsGzip(r)
}

// commonGzipForms are the Accept-Encoding values clients send most, each
// naming gzip without a weight; TestCommonGzipForms holds them to the
// parser's reading.
var commonGzipForms = map[string]struct{}{
	"gzip": {}, "x-gzip": {}, "gzip, deflate": {}, "gzip,deflate": {}, "deflate, gzip": {},
	"gzip, deflate, br": {}, "gzip,deflate,br": {}, "gzip, deflate, br, zstd": {},
	"deflate, gzip, br, zstd": {}, "br, gzip": {}, "gzip, br": {}, "br, gzip, deflate": {},
	"gzip, compress, deflate, br": {}, "gzip, zstd": {}, "zstd, gzip": {},
}

// parseAcceptsGzip is acceptsGzip's reading of any Accept-Encoding.
func parseAcceptsGzip(r *http.Request) bool {
	gzipQ, starQ, identityQ := -1.0, -1.0, -1.0 // -1: not named
	for _, line := range r.Header["Accept-Encoding"] {
		for line != "" {
			var member string
			member, line, _ = strings.Cut(line, ",")
			coding, params, _ := strings.Cut(member, ";")
			coding = strings.TrimSpace(coding)
			if coding == "" {
				continue
			}
			q, ok := weightOf(params)
			if !ok {
				continue
			}
			switch {
			case strings.EqualFold(coding, "gzip") || strings.EqualFold(coding, "x-gzip"):
				gzipQ = max(gzipQ, q)
			case coding == "*":
				starQ = max(starQ, q)
			case strings.EqualFold(coding, "identity"):
				identityQ = max(identityQ, q)
			}
		}
	}
	if gzipQ < 0 {
		gzipQ = starQ // "*" covers the codings not named
	}
	if identityQ < 0 {
		identityQ = starQ
	}
	// Identity stays acceptable when nothing weighs it; only a weight the
	// client gave it competes with gzip's.
	return gzipQ > 0 && gzipQ >= identityQ
}
