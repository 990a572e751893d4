package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHelp(t *testing.T) {
	fake := newFakeAPI(t, nil)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Usage:", "catalog", "products", "product <slug>", "--base-url URL", "CATALOG_BASE_URL", "--timeout", "--user-agent", "Examples:", "Exit codes:"}},
		{[]string{"-h"}, []string{"Usage:", "Examples:"}},
		{[]string{"help"}, []string{"Usage:", "Examples:"}},
		{[]string{"help", "products"}, []string{"products [--framework F]", "--per-page N", "--all", "Examples:", "catalogctl products --framework qbox --per-page 5"}},
		{[]string{"products", "--help"}, []string{"--framework F", "esx, qbcore", "standalone", "--category C", "--page N", "--json", "Examples:"}},
		{[]string{"product", "-h"}, []string{"product <slug> [--json]", "Examples:", "catalogctl product dispatch-system"}},
		{[]string{"product", "dispatch-system", "--help"}, []string{"product <slug> [--json]"}},
		{[]string{"catalog", "--help"}, []string{"catalog [--json]", "Examples:"}},
		{[]string{"--version"}, []string{"catalogctl " + version}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := ctl(t, nil, append([]string{"--base-url", fake.base()}, tt.args...)...)
			r.expect(t, 0, tt.want, nil)
			if r.stderr != "" {
				t.Errorf("stderr not empty:\n%s", r.stderr)
			}
			for _, l := range strings.Split(r.stdout, "\n") {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Errorf("help line of %d runes: %q", n, l)
				}
			}
			if n := len(fake.requests()); n != 0 {
				t.Fatalf("help sent %d requests", n)
			}
		})
	}
}

func TestHelpUsageErrors(t *testing.T) {
	expectUsageErrors(t, []usageCase{
		{"help for an unknown command", []string{"help", "frobnicate"}, nil, `unknown command "frobnicate"`},
	})
}
