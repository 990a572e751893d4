package seed_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/demoshop"
	"catalogd/internal/testdb"
	"catalogd/wpdb"
)

// TestNothingHiddenLeaks serves the demo shop over HTTP and walks every
// operation, every page at per_page 1 and 50, every category and
// framework filter and their combinations, every listed product, the
// slugs of the products a visitor cannot see, and the companion
// documents: no body holds a marker of a draft, pending, private,
// scheduled or trashed product, the text of a password-protected one, the
// slugs of the unpublished ones, or a price only they carry.
func TestNothingHiddenLeaks(t *testing.T) {
	// The shop demo.sql holds (TestDemoSQLIsCurrent keeps them equal),
	// loaded with a pool to read what is hidden.
	dsn, raw := testdb.Load(t, demoshop.Shop())
	db, err := wpdb.Open(dsn, wpdb.Options{Prefix: "wp_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: "http://localhost:8080",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	hidden := hiddenState(t, raw)
	if len(hidden.slugs) < 5 || len(hidden.titles) < 6 || len(hidden.prices) == 0 {
		t.Fatalf("the demo shop lost its hidden products: %+v", hidden)
	}
	t.Logf("unpublished slugs %v, titles %q; prices only they carry %v", hidden.slugs, hidden.titles, hidden.prices)

	markers := append([]string{"DRAFT-ONLY", "PENDING-ONLY", "PRIVATE-ONLY", "FUTURE-ONLY", "TRASH-ONLY", "SECRET"},
		hidden.titles...)
	// The draft without a slug yet would get one of these.
	unpublished := append([]string{"anticheat-ultimate", "anticheat-ultimate-draft-only"}, hidden.slugs...)
	type pattern struct {
		re   *regexp.Regexp
		slug string // the slug it finds, if it finds one
	}
	var patterns []pattern
	for _, s := range unpublished {
		// A slug as a whole word: "gang-wars", not "gang-wars-2".
		patterns = append(patterns, pattern{regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(s) + `($|[^a-z0-9-])`), s})
	}
	for _, p := range hidden.prices {
		patterns = append(patterns, pattern{re: regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(p) + `($|[^0-9])`)})
	}

	const apiBase = "/wp-json/shop/v1"
	requests := 0
	// fetch gets a path; echoed is a slug the request itself names, which
	// an error message may repeat.
	fetch := func(path string, echoed ...string) []byte {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		requests++
		if resp.StatusCode >= 500 {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		for _, m := range markers {
			if i := strings.Index(string(body), m); i >= 0 {
				t.Errorf("GET %s: %q leaks: …%s…", path, m, body[max(0, i-80):min(len(body), i+40)])
			}
		}
		for _, p := range patterns {
			if p.slug != "" && slices.Contains(echoed, p.slug) {
				continue
			}
			if loc := p.re.FindIndex(body); loc != nil {
				t.Errorf("GET %s: %s leaks: …%s…", path, p.re, body[max(0, loc[0]-80):min(len(body), loc[1]+40)])
			}
		}
		return body
	}
	type list struct {
		Products []struct {
			Slug string `json:"slug"`
		} `json:"products"`
		TotalPages int `json:"total_pages"`
	}
	listed := map[string]bool{}
	// walk fetches every page of a filtered list at per_page n.
	walk := func(query string, n int) {
		for page := 1; ; page++ {
			q := fmt.Sprintf("per_page=%d&page=%d", n, page)
			if query != "" {
				q = query + "&" + q
			}
			var l list
			body := fetch(apiBase + "/catalog/products?" + q)
			if err := json.Unmarshal(body, &l); err != nil {
				t.Fatalf("products?%s: %v: %s", q, err, body)
			}
			for _, p := range l.Products {
				listed[p.Slug] = true
			}
			if page >= l.TotalPages {
				return
			}
		}
	}

	for _, p := range []string{apiBase + "/catalog", apiBase + "/catalog/categories", "/openapi.json",
		"/.well-known/openapi.json", "/.well-known/api-catalog", "/llms.txt"} {
		fetch(p)
	}
	walk("", 1)
	walk("", 50)
	cats := categorySlugs(t, raw)
	for _, c := range cats {
		walk("category="+url.QueryEscape(c), 1)
		walk("category="+url.QueryEscape(c), 50)
	}
	for _, f := range api.Frameworks {
		walk("framework="+f, 1)
		walk("framework="+f, 50)
		for _, c := range cats {
			walk("framework="+f+"&category="+url.QueryEscape(c), 50)
		}
	}
	if len(listed) < 50 {
		t.Fatalf("only %d products listed", len(listed))
	}
	slugs := make([]string, 0, len(listed))
	for s := range listed {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	for _, s := range slugs {
		fetch(apiBase + "/catalog/products/" + url.PathEscape(s))
		fetch(apiBase + "/catalog/products/" + s) // as stored, percent-encoding and all
	}
	// Reachable by URL though hidden from the catalog, and the ones a
	// visitor cannot reach at all: each answers without its secrets.
	for _, s := range []string{"anticheat-pro", "anticheat-lite", "tuning-menu", "scoreboard", "casino-mlo"} {
		fetch(apiBase + "/catalog/products/" + s)
	}
	// An unpublished product's slug answers exactly as a slug that never
	// existed: the message repeats the slug asked for, and nothing else
	// tells the two apart.
	const never = "never-existed-anywhere"
	never404 := fetch(apiBase + "/catalog/products/" + never)
	neverCat := fetch(apiBase + "/catalog/products?category=" + never)
	for _, s := range unpublished {
		if got, want := fetch(apiBase+"/catalog/products/"+s, s), strings.ReplaceAll(string(never404), never, s); string(got) != want {
			t.Errorf("GET products/%s = %s, want what a slug that never existed gets: %s", s, got, want)
		}
		if got, want := fetch(apiBase+"/catalog/products?category="+s, s), strings.ReplaceAll(string(neverCat), never, s); string(got) != want {
			t.Errorf("GET products?category=%s = %s, want what a category that never existed gets: %s", s, got, want)
		}
	}
	for _, s := range hidden.slugs {
		if listed[s] {
			t.Errorf("unpublished %s is listed", s)
		}
	}
	t.Logf("%d requests, %d products listed, %d categories", requests, len(listed), len(cats))
}

// hidden is what only the products a visitor cannot see carry.
type hidden struct {
	slugs  []string // of unpublished products (trash suffix removed)
	titles []string // of unpublished products, without their marker word
	prices []string // formatted as the API formats them
}

// hiddenState reads the unpublished products' slugs and the prices no
// published product or variation carries.
func hiddenState(t *testing.T, raw *sql.DB) hidden {
	t.Helper()
	ctx := context.Background()
	var h hidden
	rows, err := raw.QueryContext(ctx, `SELECT post_name, post_title FROM wp_posts
		WHERE post_type = 'product' AND post_status <> 'publish'`)
	if err != nil {
		t.Fatal(err)
	}
	marker := regexp.MustCompile(`\s*\b[A-Z]+-ONLY\b`)
	for rows.Next() {
		var slug, title string
		if err := rows.Scan(&slug, &title); err != nil {
			t.Fatal(err)
		}
		if slug != "" { // a draft may have none yet
			h.slugs = append(h.slugs, strings.TrimSuffix(slug, "__trashed"))
		}
		h.titles = append(h.titles, strings.TrimSpace(marker.ReplaceAllString(title, "")))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	prices := func(published bool) map[string]bool {
		cond := "p.post_status <> 'publish'"
		if published {
			cond = "p.post_status = 'publish' OR (p.post_type = 'product_variation' AND parent.post_status = 'publish')"
		}
		rows, err := raw.QueryContext(ctx, `SELECT DISTINCT m.meta_value FROM wp_postmeta m
			JOIN wp_posts p ON p.ID = m.post_id
			LEFT JOIN wp_posts parent ON parent.ID = p.post_parent
			WHERE m.meta_key IN ('_price', '_regular_price', '_sale_price') AND m.meta_value <> ''
			AND p.post_type IN ('product', 'product_variation') AND (`+cond+`)`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]bool{}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out[formatPrice(t, v)] = true
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	shown := prices(true)
	for p := range prices(false) {
		if !shown[p] {
			h.prices = append(h.prices, p)
		}
	}
	sort.Strings(h.slugs)
	sort.Strings(h.prices)
	return h
}

// formatPrice formats a stored price with two decimals, as the demo shop's
// settings have the API do (its own rounding is tested elsewhere; the
// hidden products' prices are whole numbers).
func formatPrice(t *testing.T, v string) string {
	t.Helper()
	var f float64
	if _, err := fmt.Sscan(v, &f); err != nil {
		t.Fatalf("price %q: %v", v, err)
	}
	return fmt.Sprintf("%.2f", f)
}

// categorySlugs is every product category, listed or not.
func categorySlugs(t *testing.T, raw *sql.DB) []string {
	t.Helper()
	rows, err := raw.Query(`SELECT t.slug FROM wp_terms t JOIN wp_term_taxonomy tt ON tt.term_id = t.term_id
		WHERE tt.taxonomy = 'product_cat' ORDER BY t.slug`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
