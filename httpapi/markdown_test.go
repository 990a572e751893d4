package httpapi

import "testing"

// Shop-controlled text is inert Markdown, and only http(s) or site-relative
// URLs become link destinations, escaped so that they cannot end the link.
func TestMarkdownEscaping(t *testing.T) {
	texts := []struct{ in, want string }{
		{"Police", "Police"},
		{"UI & HUD", `UI \& HUD`},
		{"](javascript:alert(1)) [x", `\]\(javascript:alert\(1\)\) \[x`},
		{"*bold* _em_ `code` <b>", "\\*bold\\* \\_em\\_ \\`code\\` \\<b\\>"},
		{"Name\n# Injected heading\n- [x](javascript:alert(1))", `Name \# Injected heading - \[x\]\(javascript:alert\(1\)\)`},
		{`back\slash`, `back\\slash`},
		{"Полиция", "Полиция"},
	}
	for _, tt := range texts {
		if got := mdText(tt.in); got != tt.want {
			t.Errorf("mdText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	urls := []struct {
		in, want string
		ok       bool
	}{
		{"https://shop.example/product-category/police/", "https://shop.example/product-category/police/", true},
		{"http://shop.example/x", "http://shop.example/x", true},
		{"HTTPS://shop.example/x", "https://shop.example/x", true},
		{"/wp-json/shop/v1/catalog", "/wp-json/shop/v1/catalog", true},
		{"https://shop.example/product-category/%d0%bf%d0%be/", "https://shop.example/product-category/%d0%bf%d0%be/", true},
		{"https://shop.example/a b/(x)", "https://shop.example/a%20b/%28x%29", true},
		{"https://shop.example/полиция/", "https://shop.example/%D0%BF%D0%BE%D0%BB%D0%B8%D1%86%D0%B8%D1%8F/", true},
		{"https://shop.example/p?category=a b)", "https://shop.example/p?category=a%20b%29", true},
		{"https://shop.example/p?x=`y`<z>", "https://shop.example/p?x=%60y%60%3Cz%3E", true},
		{"javascript:alert(1)", "", false},
		{"JavaScript:alert(1)//https://x", "", false},
		{"data:text/html,<script>", "", false},
		{"//evil.example/x", "", false},
		{"https:///nohost", "", false},
		{"ftp://shop.example/x", "", false},
		{"relative/path", "", false},
		{"", "", false},
	}
	for _, tt := range urls {
		got, ok := mdURL(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("mdURL(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if got := mdLink("](javascript:alert(1)) [x", "javascript:alert(1)"); got != `\]\(javascript:alert\(1\)\) \[x` {
		t.Errorf("a link to javascript: = %q, want the text alone", got)
	}
}
