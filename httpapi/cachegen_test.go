package httpapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// shopStub is a handler whose answer is the shop's current version; one
// request can be held inside it, after it read the shop, to overlap a
// change.
type shopStub struct {
	version atomic.Int64
	hold    atomic.Bool // the next request waits in the handler
	entered chan struct{}
	release chan struct{}
}

func newShopStub() *shopStub {
	return &shopStub{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (s *shopStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v := s.version.Load() // the shop as read by this fill
	describe(r, 0, time.Time{}, time.Time{}, []string{"shop-product", "shop-product-" + r.URL.Path[1:]})
	if s.hold.CompareAndSwap(true, false) {
		s.entered <- struct{}{}
		<-s.release
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "v%d", v)
}

func stubCache(t *testing.T, cfg CacheConfig, h http.Handler) (*Cache, func(path string) *httptest.ResponseRecorder) {
	t.Helper()
	c := NewCache(cfg)
	c.setTagging("shop", TagSurrogateKey)
	mw := c.middleware(h, pathKey, newCacheControl(DefaultFreshness))
	return c, func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		mw.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}
}

// fillAcrossChange starts a request for path whose fill reads the shop (v0)
// and is held there, then changes the shop (v1) and invalidates the cache;
// the request answers on done once shop.release is closed.
func fillAcrossChange(shop *shopStub, c *Cache, get func(string) *httptest.ResponseRecorder, path string) (done <-chan *httptest.ResponseRecorder) {
	shop.hold.Store(true)
	answer := make(chan *httptest.ResponseRecorder, 1)
	go func() { answer <- get(path) }()
	<-shop.entered // the fill has read v0
	shop.version.Store(1)
	c.Invalidate()
	return answer
}

// A fill that read the shop before a change and finished after it is no
// fresh answer: the next request asks the shop again, and a request made
// after the change does not wait for (and take) the older fill's answer.
func TestFillOverlappingChange(t *testing.T) {
	shop := newShopStub()
	c, get := stubCache(t, CacheConfig{TTL: time.Hour}, shop)
	done := fillAcrossChange(shop, c, get, "/radar")

	joined := make(chan *httptest.ResponseRecorder)
	go func() { joined <- get("/radar") }()
	select {
	case w := <-joined:
		if w.Body.String() != "v1" {
			t.Errorf("a request after the change got %q, want v1", w.Body.String())
		}
	case <-time.After(5 * time.Second):
		t.Errorf("a request after the change waits for the fill begun before it")
	}
	close(shop.release)
	if w := <-done; w.Body.String() != "v0" {
		t.Fatalf("the overlapping fill answered %q", w.Body.String())
	}
	select {
	case <-joined: // a late join (the failure above) ends here
	default:
	}
	if w := get("/radar"); w.Body.String() != "v1" || w.Header().Get("X-Cache") != "HIT" {
		t.Errorf("after the change: %q %s, want v1 HIT (the old answer must not be kept as fresh)",
			w.Body.String(), w.Header().Get("X-Cache"))
	}
}

// The same without a request after the change: the overlapping fill's
// answer is not served as a hit.
func TestFillOverlappingChangeNotCachedFresh(t *testing.T) {
	shop := newShopStub()
	c, get := stubCache(t, CacheConfig{TTL: time.Hour}, shop)
	done := fillAcrossChange(shop, c, get, "/radar")
	close(shop.release)
	<-done
	if w := get("/radar"); w.Body.String() != "v1" || w.Header().Get("X-Cache") != "MISS" {
		t.Errorf("after the change: %q %s, want v1 MISS", w.Body.String(), w.Header().Get("X-Cache"))
	}
}
