package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
)

// The Go profiler answers on the admin listener, which only the operator
// reaches, and nowhere on the public one: a profile shows the server's
// memory and a CPU profile costs it its time.
func TestProfilerOnlyOnTheAdminListener(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	r := start(t, dsn, "CATALOG_SITE_URL=https://shop.example")
	r.waitReadyz(t, http.StatusOK, 10*time.Second)
	public, admin := r.Public, r.Admin
	get := func(url string) (int, string) {
		t.Helper()
		status, body, err := r.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		return status, body
	}
	tests := []struct {
		listener, path string
		want           int
		wantBody       string
	}{
		{admin, "/debug/pprof/", http.StatusOK, "heap"},
		{admin, "/debug/pprof/heap?debug=1", http.StatusOK, "heap profile"},
		{admin, "/debug/pprof/goroutine?debug=1", http.StatusOK, "goroutine profile"},
		// The command line may carry the DSN's password (--dsn).
		{admin, "/debug/pprof/cmdline", http.StatusNotFound, "Unknown profile"},
		{public, "/debug/pprof/", http.StatusNotFound, "shop_not_found"},
		{public, "/debug/pprof/heap?debug=1", http.StatusNotFound, "shop_not_found"},
		{public, "/debug/pprof/profile?seconds=1", http.StatusNotFound, "shop_not_found"},
		{public, "/debug/pprof/cmdline", http.StatusNotFound, "shop_not_found"},
	}
	for _, tt := range tests {
		name := "admin"
		if tt.listener == public {
			name = "public"
		}
		t.Run(name+tt.path, func(t *testing.T) {
			status, body := get("http://" + tt.listener + tt.path)
			if status != tt.want || !strings.Contains(body, tt.wantBody) {
				t.Errorf("GET %s on the %s listener = %d %.200q; want %d with %q", tt.path, name, status, body, tt.want, tt.wantBody)
			}
		})
	}
}
