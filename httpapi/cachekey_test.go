package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"catalogd/api"
)

// keyOf is the cache key of r, as the server computes it: the list's query
// parsed before the cache when it is not canonical.
func keyOf(listPath string, r *http.Request) string {
	var k string
	parseList(listPath, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		k = apiKey(listPath)(r)
	})).ServeHTTP(nil, r)
	return k
}

// Requests that mean the same share a cache entry whether or not their
// query is already canonical; requests that differ never do.
func TestCacheKey(t *testing.T) {
	key := func(target string) string { return keyOf("/p", httptest.NewRequest("GET", target, nil)) }
	same := [][]string{
		{"/p?page=2&per_page=5", "/p?per_page=5&page=2", "/p?per_page=5&utm_source=x&page=2", "/p?page=2&per_page=%35",
			"/p?page=02&per_page=005", "/p?page=%302&per_page=0005"},
		{"/p", "/p?utm=1", "/p?"},
		{"/p?category=ui-hud&framework=esx", "/p?framework=esx&category=ui-hud", "/p?framework=%65sx&category=ui%2Dhud"},
		{"/p?page=0", "/p?page=-1", "/p?page=abc", "/p?page=", "/p?page=1e3", "/p?page=99999999999999999999"},
		{"/p?page=1&page=2", "/p?page=3&page=04"},
		{"/p?framework=ESX", "/p?framework=vrp"},
	}
	for _, group := range same {
		for _, other := range group[1:] {
			if key(group[0]) != key(other) {
				t.Errorf("%s and %s: keys %q and %q differ", group[0], other, key(group[0]), key(other))
			}
		}
	}
	for _, pair := range [][2]string{{"/p?page=2", "/p?page=3"}, {"/p?page=1&page=2", "/p?page=1"},
		{"/p?category=a", "/p?framework=a"}, {"/p?page=2", "/q?page=2"}, {"/p?page=0", "/p?per_page=0"},
		{"/p?page=0", "/p?page=1&page=2"}, {"/p?category=Jobs", "/p?category=jobs"}, {"/p?page=1", "/p"}} {
		if key(pair[0]) == key(pair[1]) {
			t.Errorf("%s and %s share the key %q", pair[0], pair[1], key(pair[0]))
		}
	}
	// An operation that reads no query is keyed by its path alone.
	if k := key("/catalog?page=2"); k != "/catalog" {
		t.Errorf("key of /catalog?page=2 = %q, want /catalog", k)
	}
}

// The finding parameters are part of the key, each in its canonical
// spelling: a search's "+" and "%20", a percent escape in either case, an
// escaped letter and the raw UTF-8 share a key, as do a price's trailing
// and leading zeros and the parameters' order; a search meaning another
// (a literal "+") and every other value keep their own.
func TestCacheKeyFindingParams(t *testing.T) {
	key := func(target string) string { return keyOf("/p", httptest.NewRequest("GET", target, nil)) }
	same := [][]string{
		{"/p?search=red+shoes", "/p?search=red%20shoes", "/p?search=%72ed+shoes", "/p?utm_source=x&search=red%20shoes"},
		{"/p?search=caf%C3%A9", "/p?search=caf%c3%a9", "/p?search=café"},
		{"/p?search=%22red+shoes%22+-blue", "/p?search=%22red%20shoes%22%20-blue"},
		{"/p?search=", "/p?search"},
		{"/p?orderby=price&order=desc", "/p?order=desc&orderby=price"},
		{"/p?min_price=10&max_price=20.5", "/p?max_price=20.50&min_price=010.0", "/p?max_price=%32%30.5&min_price=10"},
		{"/p?in_stock=true&on_sale=false&facets=true", "/p?facets=true&on_sale=false&in_stock=true"},
		{"/p?in_stock=TRUE", "/p?in_stock=1", "/p?in_stock=yes"},
	}
	for _, group := range same {
		for _, other := range group[1:] {
			if key(group[0]) != key(other) {
				t.Errorf("%s and %s: keys %q and %q differ", group[0], other, key(group[0]), key(other))
			}
		}
	}
	for _, pair := range [][2]string{{"/p?search=a+b", "/p?search=a%2Bb"},
		{"/p?search=radar", "/p"}, {"/p?search=radar", "/p?search=radar&orderby=relevance"},
		{"/p?orderby=price", "/p?orderby=price&order=desc"}, {"/p?orderby=price", "/p?orderby=title"},
		{"/p?min_price=10", "/p?max_price=10"}, {"/p?min_price=10", "/p?min_price=10.01"},
		{"/p?in_stock=true", "/p?in_stock=false"}, {"/p?on_sale=true", "/p?in_stock=true"},
		{"/p?facets=true", "/p?facets=false"}, {"/p?facets=true", "/p"}} {
		if key(pair[0]) == key(pair[1]) {
			t.Errorf("%s and %s share the key %q", pair[0], pair[1], key(pair[0]))
		}
	}
}

// The hit path's key is the request line's target when that is the path
// and query as they are: an absolute target, or a path rewritten before the
// cache (restRoute, a trailing slash), gives the same key the long way.
func TestCacheKeyReusesTheTarget(t *testing.T) {
	for _, target := range []string{"/p?page=2&per_page=5", "https://shop.example/p?page=2&per_page=5", "/p/?page=2&per_page=5"} {
		r := httptest.NewRequest("GET", target, nil)
		r.URL.Path = "/p" // as the middleware rewrites "/p/"
		if k := cacheKey(r, true); k != "/p?page=2&per_page=5" {
			t.Errorf("%s: key %q, want /p?page=2&per_page=5", target, k)
		}
	}
	r := httptest.NewRequest("GET", "/p?page=2", nil)
	if n := testing.AllocsPerRun(100, func() { _ = cacheKey(r, true) }); n != 0 {
		t.Errorf("a canonical target's key allocates %v times", n)
	}
}

// FuzzCacheKey: a query the hit path takes as canonical without parsing has
// exactly the key the long way gives it.
func FuzzCacheKey(f *testing.F) {
	for _, q := range []string{"page=2&per_page=5", "category=ui-hud&framework=esx", "page=02", "per_page=51",
		"category=%41", "page=1&page=2", "category=&page=1", "framework=ESX", "per_page=50", "page=123456789012345678",
		"search=red+shoes", "search=caf%C3%A9", "orderby=price&order=desc", "max_price=20.5&min_price=10",
		"facets=true&in_stock=true&on_sale=false"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse("/p?" + raw)
		if raw == "" || err != nil || u.RawQuery != raw || !api.CanonicalQuery(raw) {
			return
		}
		r := httptest.NewRequest("GET", "/p", nil)
		r.URL.RawQuery = "x=1&" + raw // not canonical: the long way
		if long := keyOf("/p", r); long != "/p?"+raw {
			t.Errorf("canonical %q, but the long way keys it %q", raw, long)
		}
	})
}
