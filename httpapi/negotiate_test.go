package httpapi

import (
	"net/http"
	"testing"
)

// Accept-Encoding is read as RFC 9110 §12.5.3 says: tokens are
// case-insensitive, a weight of 0 (however spelled) refuses a coding, an
// explicit coding wins over "*", and identity may be refused too.
func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		name   string
		header []string // nil: no Accept-Encoding at all
		want   bool
	}{
		{"no header: identity", nil, false},
		{"empty: identity", []string{""}, false},
		{"gzip", []string{"gzip"}, true},
		{"upper case", []string{"GZIP"}, true},
		{"x-gzip is gzip", []string{"x-gzip"}, true},
		{"browser list", []string{"gzip, deflate, br, zstd"}, true},
		{"q=0", []string{"gzip;q=0"}, false},
		{"upper-case Q=0", []string{"GZIP;Q=0"}, false},
		{"four zero decimals", []string{"gzip;q=0.0000"}, false},
		{"three zero decimals", []string{"gzip;q=0.000"}, false},
		{"q after another parameter", []string{"gzip;level=1;q=0"}, false},
		{"spaces around the weight", []string{"gzip ; q=0 "}, false},
		{"small but positive", []string{"gzip;q=0.001"}, true},
		{"q=1", []string{"gzip;q=1.0"}, true},
		{"star", []string{"*"}, true},
		{"star refused", []string{"*;q=0"}, false},
		{"star refused, gzip named", []string{"*;q=0, gzip"}, true},
		{"gzip named refused, star allowed", []string{"gzip;q=0, *"}, false},
		{"gzip refused in a second header line", []string{"br", "gzip;q=0"}, false},
		{"gzip in a second header line", []string{"br", "gzip"}, true},
		{"identity preferred over gzip", []string{"gzip;q=0.5, identity"}, false},
		{"gzip preferred over identity", []string{"gzip, identity;q=0.5"}, true},
		{"identity refused", []string{"identity;q=0, gzip;q=0.1"}, true},
		{"malformed weight ignores the member", []string{"gzip;q=abc"}, false},
		{"weight above 1 ignores the member", []string{"gzip;q=2"}, false},
		{"other codings only", []string{"br, deflate"}, false},
		{"gzip as a prefix is not gzip", []string{"gzipx"}, false},
		{"empty members", []string{" , ,gzip"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			for _, v := range tt.header {
				r.Header.Add("Accept-Encoding", v)
			}
			if got := acceptsGzip(r); got != tt.want {
				t.Errorf("Accept-Encoding %q: gzip = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

// The one q-value parser, shared by Accept and Accept-Encoding.
func TestParseQ(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"1.000", 1, true}, {"0", 0, true}, {"0.0000", 0, true}, {"0.5", 0.5, true},
		{"0.", 0, true}, {"1.001", 0, false}, {"2", 0, false}, {"-0", 0, false}, {".5", 0, false},
		{"", 0, false}, {"abc", 0, false}, {"0.5x", 0, false}, {"1e0", 0, false},
	}
	for _, tt := range tests {
		q, ok := parseQ(tt.in)
		if ok != tt.ok || ok && q != tt.want {
			t.Errorf("parseQ(%q) = %v, %v; want %v, %v", tt.in, q, ok, tt.want, tt.ok)
		}
	}
}

// TestCommonGzipForms: the values acceptsGzip answers without parsing are
// ones the parser accepts too, so the shortcut changes no answer.
func TestCommonGzipForms(t *testing.T) {
	for form := range commonGzipForms {
		r := &http.Request{Header: http.Header{"Accept-Encoding": {form}}}
		if !parseAcceptsGzip(r) {
			t.Errorf("%q is taken as gzip without parsing, but the parser refuses it", form)
		}
	}
}
