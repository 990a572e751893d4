package seed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"catalogd/api"

	"catalogd/catalog"
	"catalogd/internal/demoshop"
	"catalogd/internal/testdb"
	"catalogd/wpdb"
)

// TestDemoSQLIsCurrent fails when demo.sql no longer matches the demo shop
// (internal/demoshop): run `make seed`.
func TestDemoSQLIsCurrent(t *testing.T) {
	var buf bytes.Buffer
	if err := demoshop.Shop().WriteSQL(&buf); err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("demo.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), committed) {
		t.Fatal("deploy/seed/demo.sql is stale: run `make seed` and commit it")
	}
}

// loadScript runs demo.sql the way `make demo` does with the mysql client:
// statement by statement on one connection.
func loadScript(t *testing.T) *wpdb.DB {
	t.Helper()
	dsn := testdb.New(t)
	raw := testdb.Open(t, dsn)
	script, err := os.ReadFile("demo.sql")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, stmt := range strings.Split(string(script), ";\n") {
		var lines []string
		for _, l := range strings.Split(stmt, "\n") {
			if !strings.HasPrefix(l, "--") {
				lines = append(lines, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				t.Fatalf("demo.sql: %v\n%.200s", err, s)
			}
		}
	}
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestDemoShop loads the committed script and walks every operation and
// page: what a visitor cannot see never appears, and the shop shows the
// states it was built to show.
func TestDemoShop(t *testing.T) {
	db := loadScript(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	ctx := context.Background()

	var seen []any
	idx, err := cat.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen = append(seen, idx)
	cats, err := cat.Categories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen = append(seen, cats)
	listed := map[string]bool{}
	for page := 1; ; page++ {
		l, err := cat.Products(ctx, api.ListQuery{Page: page, PerPage: 50})
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, l)
		for _, p := range l.Products {
			listed[p.Slug] = true
			single, err := cat.Product(ctx, p.Slug)
			if strings.Contains(p.Slug, "%") {
				// A slug WordPress percent-encoded cannot be asked for by
				// an English slug; it is listed all the same.
				continue
			}
			if err != nil {
				t.Errorf("listed product %s: %v", p.Slug, err)
				continue
			}
			seen = append(seen, single)
		}
		if page >= l.TotalPages {
			break
		}
	}
	if len(listed) != idx.ProductCount || idx.ProductCount < 50 {
		t.Errorf("listed %d products, index says %d", len(listed), idx.ProductCount)
	}

	// Hidden from the catalog but published: served by slug, never listed.
	for _, slug := range []string{"anticheat-pro", "anticheat-lite", "tuning-menu"} {
		if listed[slug] {
			t.Errorf("%s is hidden from the catalog but listed", slug)
		}
		p, err := cat.Product(ctx, slug)
		if err != nil {
			t.Errorf("%s: %v", slug, err)
			continue
		}
		seen = append(seen, p)
	}
	// Not published: 404.
	for _, slug := range []string{"heist-pack", "gang-wars", "dev-toolkit", "winter-update", "old-police-job", "phone-pro-esx"} {
		if _, err := cat.Product(ctx, slug); catalog.ErrorKind(err) != catalog.ENOTFOUND {
			t.Errorf("%s: err = %v, want not found", slug, err)
		}
	}

	out, err := json.Marshal(seen)
	if err != nil {
		t.Fatal(err)
	}
	for _, marker := range []string{"-ONLY", "SECRET", "anticheat-ultimate"} {
		if bytes.Contains(out, []byte(marker)) {
			i := bytes.Index(out, []byte(marker))
			t.Errorf("%q leaks: …%s…", marker, out[max(0, i-80):min(len(out), i+40)])
		}
	}

	// A few states the demo exists to show.
	for slug, want := range map[string]string{
		"k9-unit":         "price 4.00 on_sale false",
		"dispatch-system": "price 10.00 on_sale true",
		"trucker-job":     "price 8.00 on_sale false",
		"taxi-job":        "price 14.00 on_sale true",
		"stock-market":    "price <nil> on_sale false",
		"garbage-job":     "price 0.00 on_sale false",
	} {
		p, err := cat.Product(ctx, slug)
		if err != nil {
			t.Errorf("%s: %v", slug, err)
			continue
		}
		got := "price <nil>"
		if p.Price != nil {
			got = "price " + *p.Price
		}
		got += fmt.Sprintf(" on_sale %v", p.OnSale)
		if got != want {
			t.Errorf("%s: %s, want %s", slug, got, want)
		}
	}
}
