package main

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"catalogd/api"
)

func TestTableFitsEightyColumns(t *testing.T) {
	long := fakeProduct("a-very-long-product-slug-that-goes-on-and-on-and-on")
	long.Name = "Ein außergewöhnlich langer Produktname mit Umlauten — und noch mehr Text"
	long.Frameworks = api.Frameworks
	cjk := fakeProduct("tokyo-drift-pack-%e6%9d%b1%e4%ba%ac")
	cjk.Name = "Tokyo Drift Pack 東京 東京 東京 東京 東京 東京 東京 東京"
	cjk.Price, cjk.InStock, cjk.Purchasable = nil, false, false
	short := fakeProduct("k9")
	tests := []struct {
		name     string
		products []api.Product
		want     []string
	}{
		{"empty", nil, []string{"SLUG  NAME  PRICE  STOCK  BUY  FRAMEWORKS"}},
		{"short", []api.Product{short}, []string{"k9    K9    5.00 EUR  in stock  yes  esx"}},
		{"long and wide", []api.Product{short, long, cjk}, []string{"…", "—", "out of stock", " no "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := renderTable(&b, tt.products); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if len(lines) != 1+len(tt.products) {
				t.Errorf("%d lines, want %d:\n%s", len(lines), 1+len(tt.products), b.String())
			}
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Errorf("line of %d runes: %q", n, l)
				}
				if !utf8.ValidString(l) {
					t.Errorf("invalid UTF-8 (a rune cut in half): %q", l)
				}
			}
			for _, s := range tt.want {
				if !strings.Contains(b.String(), s) {
					t.Errorf("table lacks %q:\n%s", s, b.String())
				}
			}
		})
	}
}

func TestFitAndWrap(t *testing.T) {
	fits := []struct {
		in   string
		n    int
		want string
	}{
		{"Café Job", 8, "Café Job"},
		{"Café Job", 4, "Caf…"},
		{"東京東京", 3, "東京…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	}
	for _, tt := range fits {
		if got := fit(tt.in, tt.n); got != tt.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	wraps := []struct {
		in, want string
		n        int
	}{
		{"one two three", "one two\nthree\n", 7},
		{"para one\n\npara two", "para one\n\npara two\n", 80},
		{"süß süß süß", "süß süß\nsüß\n", 7},
		{"a https://example.com/very/long b", "a\nhttps://example.com/very/long\nb\n", 10},
		{"", "\n", 80},
	}
	for _, tt := range wraps {
		if got := wrap(tt.in, tt.n); got != tt.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestOutputPipes checks that the text output is plain lines, so that it
// pipes into grep and friends: no terminal escapes, no carriage returns.
func TestOutputPipes(t *testing.T) {
	fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) {
		p := fakeProduct("k9-unit")
		p.Name = "K9\tUnit\r\nDeluxe"
		writeJSONAnswer(w, 200, p)
	})
	r := ctl(t, nil, "--base-url", fake.base(), "product", "k9-unit")
	r.expect(t, 0, []string{"K9 Unit Deluxe\n"}, nil)
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		if strings.ContainsAny(sc.Text(), "\r\x1b\t") {
			t.Errorf("line with a control character: %q", sc.Text())
		}
	}
}
