package httpapi

import (
	"net/url"
	"strings"
)

// queryValues parses a raw query string like url.ParseQuery, except that a
// pair whose value is not valid percent-encoding is kept undecoded rather
// than dropped: "page=%zz" must be rejected as a bad page, not read as no
// page at all. A pair whose key cannot be decoded is no parameter the API
// knows, and is ignored as unknown parameters are.
func queryValues(raw string) url.Values {
	v := url.Values{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, val, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		if dec, err := url.QueryUnescape(val); err == nil {
			val = dec
		}
		v[key] = append(v[key], val)
	}
	return v
}
