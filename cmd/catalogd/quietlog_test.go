package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"catalogd/deploy/seed"
	"catalogd/internal/testdb"
)

// loudLine matches a log line at WARN or ERROR, text or JSON.
var loudLine = regexp.MustCompile(`(?m)^.*(level=(WARN|ERROR)|"level":"(WARN|ERROR)").*$`)

// The demo's start, as make demo runs it: the demo shop in a throwaway
// database read as a user that can write (root there), with
// CATALOG_ALLOW_WRITABLE_USER=true as the Makefile's demo passes. Nothing
// is logged at WARN or ERROR through start-up and a visitor's first
// requests (a page, a product, a 404, a bad query), the writable user is
// said at INFO, and no statement counts as errored: every errored query
// would have its log line.
func TestDemoStartIsQuiet(t *testing.T) {
	dsn, _ := testdb.Load(t, seed.Demo())
	r := start(t, dsn, "CATALOG_ALLOW_WRITABLE_USER=true", "CATALOG_SITE_URL=http://localhost:8080")
	r.waitBaseline(t)
	for path, want := range map[string]int{
		"/catalog": 200, "/catalog/products": 200, "/catalog/categories": 200,
		"/catalog/products/no-such-product": 404, "/catalog/products?per_page=0": 400,
	} {
		if a := r.fetch(r.API + path); a.err != nil || a.status != want {
			t.Errorf("GET %s: %d %v, want %d", path, a.status, a.err, want)
		}
	}
	m := r.fetch(r.AdminURL + "/metrics")
	if m.status != http.StatusOK {
		t.Fatalf("/metrics: %d %v", m.status, m.err)
	}
	if errored := regexp.MustCompile(`(?m)^catalogd_db_query_duration_seconds_count\{outcome="error"\} (\S+)$`).FindSubmatch(m.body); errored != nil && string(errored[1]) != "0" {
		t.Errorf("/metrics counts %s errored queries after a normal start", errored[1])
	}
	log := r.Stderr.String()
	if loud := loudLine.FindAllString(log, -1); len(loud) > 0 {
		t.Errorf("a normal demo start logged at WARN or ERROR:\n%s", strings.Join(loud, "\n"))
	}
	if cfg, err := mysql.ParseDSN(dsn); err == nil && cfg.User == "root" &&
		!regexp.MustCompile(`level=INFO msg="the database user can write, as --allow-writable-user allows`).MatchString(log) {
		t.Errorf("the writable user is not said at INFO:\n%s", log)
	}
}

// Without CATALOG_ALLOW_WRITABLE_USER, a user that can write is warned
// about, as production must hear; a SELECT-only user is not.
func TestWritableUserIsWarned(t *testing.T) {
	dsn, _ := testdb.Load(t, jobsShop())
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		grants []string
		warned bool
	}{
		{"can write", []string{"SELECT, INSERT ON `" + cfg.DBName + "`.*"}, true},
		{"SELECT only", []string{"SELECT ON `" + cfg.DBName + "`.*"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := testdb.NewUser(t, dsn, tt.grants...)
			r := start(t, u.DSN, "CATALOG_ACCESS_LOG=false")
			r.waitBaseline(t)
			log := r.Stderr.String()
			warned := regexp.MustCompile(`(?m)^.*level=WARN msg="the database user can write; give catalogd a SELECT-only user.*--allow-writable-user`).MatchString(log)
			if warned != tt.warned {
				t.Errorf("warned %v, want %v; log:\n%s", warned, tt.warned, log)
			}
			if !tt.warned {
				if loud := loudLine.FindAllString(log, -1); len(loud) > 0 {
					t.Errorf("a read-only user's start logged at WARN or ERROR:\n%s", strings.Join(loud, "\n"))
				}
			}
		})
	}
}
