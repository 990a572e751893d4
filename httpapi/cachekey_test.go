package httpapi

import (
	"net/http/httptest"
	"testing"
)

// Requests that mean the same share a cache entry whether or not their
// query is already canonical; requests that differ never do.
func TestCacheKey(t *testing.T) {
	key := func(target string) string { return cacheKey(httptest.NewRequest("GET", target, nil)) }
	same := [][]string{
		{"/p?page=2&per_page=5", "/p?per_page=5&page=2", "/p?per_page=5&utm_source=x&page=2", "/p?page=2&per_page=%35"},
		{"/p", "/p?utm=1", "/p?"},
		{"/p?category=ui-hud&framework=esx", "/p?framework=esx&category=ui-hud"},
	}
	for _, group := range same {
		for _, other := range group[1:] {
			if key(group[0]) != key(other) {
				t.Errorf("%s and %s: keys %q and %q differ", group[0], other, key(group[0]), key(other))
			}
		}
	}
	for _, pair := range [][2]string{{"/p?page=2", "/p?page=3"}, {"/p?page=1&page=2", "/p?page=1"},
		{"/p?category=a", "/p?framework=a"}, {"/p?page=2", "/q?page=2"}} {
		if key(pair[0]) == key(pair[1]) {
			t.Errorf("%s and %s share the key %q", pair[0], pair[1], key(pair[0]))
		}
	}
}
