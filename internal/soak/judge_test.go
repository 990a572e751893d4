package soak

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// judge tells the answers inside a fault window (with its grace) from those
// outside, and names each kind of answer the soak does not allow.
func TestJudge(t *testing.T) {
	s := time.Second
	window := [2]time.Duration{10 * s, 15 * s}
	tests := []struct {
		name    string
		r       result
		inside  bool
		verdict string // in a violation; "" for none
	}{
		{"a 200 outside", result{sent: 2 * s, done: 2 * s, status: 200}, false, ""},
		{"a 503 for a key never answered, outside", result{sent: 2 * s, done: 2 * s, status: 503, retryAfterSet: true}, false, ""},
		{"a 503 for a cached key, outside", result{sent: 2 * s, done: 2 * s, status: 503, hadCopy: true, retryAfterSet: true},
			false, "503s outside the fault windows"},
		{"a 500 anywhere", result{sent: 2 * s, done: 2 * s, status: 500}, false, "answers were 500"},
		{"a 502", result{sent: 2 * s, done: 2 * s, status: 502}, false, "5xx other than 503"},
		{"a transport error outside", result{sent: 2 * s, done: 2 * s, err: errors.New("reset")}, false, "transport errors"},
		{"a transport error inside", result{sent: 11 * s, done: 11 * s, err: errors.New("reset")}, true, ""},
		{"a 503 during a fault", result{sent: 11 * s, done: 12 * s, status: 503, retryAfterSet: true}, true, "503s during the faults"},
		{"a 503 within the grace", result{sent: 17 * s, done: 17 * s, status: 503, retryAfterSet: true}, true, "503s during the faults"},
		{"a 200 after the grace", result{sent: 19 * s, done: 19 * s, status: 200}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			rep := &Report{Options: o, Windows: [][2]time.Duration{window}}
			rep.judge([]result{tt.r})
			if got := rep.Inside.Total == 1; got != tt.inside {
				t.Errorf("inside = %v, want %v", got, tt.inside)
			}
			if rep.All.Total != 1 || rep.Inside.Total+rep.Outside.Total != 1 {
				t.Errorf("tallies: all %d, inside %d, outside %d; want one answer", rep.All.Total, rep.Inside.Total, rep.Outside.Total)
			}
			got := strings.Join(rep.Violations, "; ")
			if tt.verdict == "" && got != "" || !strings.Contains(got, tt.verdict) {
				t.Errorf("violations %q, want %q", got, tt.verdict)
			}
			if md := rep.Markdown(); strings.Contains(md, "**PASS**") != (len(rep.Violations) == 0) {
				t.Errorf("the report's verdict does not follow the violations:\n%s", md)
			}
		})
	}
}
