package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"catalogd/api"
)

// categoriesCases: categories against the demo shop, which has
// idx.CategoryCount of them. Each row shows what the API's JSON says of
// that category: its count and its parent.
func categoriesCases(idx api.Index, env []string) []demoCase {
	return []demoCase{
		{
			name: "categories", args: []string{"categories"},
			stdout: []string{"SLUG", "NAME", "PRODUCTS", "PARENT", fmt.Sprintf("%d categories\n", idx.CategoryCount)},
			check: func(t *testing.T, r result) {
				j := ctl(t, env, "categories", "--json")
				var list api.CategoryList
				if err := json.Unmarshal([]byte(j.stdout), &list); err != nil {
					t.Fatalf("categories --json is not the category list: %v\n%s", err, j.stdout)
				}
				if len(list.Categories) != idx.CategoryCount {
					t.Errorf("categories --json lists %d, the index counts %d", len(list.Categories), idx.CategoryCount)
				}
				for _, c := range list.Categories {
					parent := "-"
					if c.Parent != nil {
						parent = *c.Parent
					}
					row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.Slug) + `\s+` + regexp.QuoteMeta(c.Name) +
						`\s+` + fmt.Sprint(c.Count) + `\s+` + regexp.QuoteMeta(parent) + `$`)
					if !row.MatchString(r.stdout) {
						t.Errorf("no row %s | %s | %d | %s in:\n%s", c.Slug, c.Name, c.Count, parent, r.stdout)
					}
				}
			},
		},
	}
}

// The table against a fake: in the API's order, a top-level category's
// parent shown as -, one line per category however long its name, within
// 80 columns; --json passes the API's JSON through.
func TestCategoriesTable(t *testing.T) {
	long := strings.Repeat("Very Long Category Name ", 6)
	parent := "jobs"
	cats := api.CategoryList{Categories: []api.Category{
		{Slug: "jobs", Name: "Jobs", Count: 20, URL: "https://shop.example/product-category/jobs/"},
		{Slug: "police", Name: "Police", Count: 7, URL: "https://shop.example/product-category/jobs/police/", Parent: &parent},
		{Slug: "long", Name: long + "\nsecond line", Count: 1, URL: "https://shop.example/product-category/long/"},
	}}
	handler := func(n int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/wp-json/shop/v1/catalog/categories" {
			apiError(w, 404, "shop_not_found", "No route.", "")
			return
		}
		writeJSONAnswer(w, 200, cats)
	}
	runFakeCases(t, []fakeCase{
		{
			name: "table", handler: handler, args: []string{"categories"}, requests: 1,
			check: func(t *testing.T, r result, _ []*http.Request) {
				lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
				if len(lines) != 5 {
					t.Fatalf("%d lines, want a header, 3 rows and the count:\n%s", len(lines), r.stdout)
				}
				for i, re := range []string{`^SLUG\s+NAME\s+PRODUCTS\s+PARENT$`, `^jobs\s+Jobs\s+20\s+-$`,
					`^police\s+Police\s+7\s+jobs$`, `^long\s+Very Long .*…\s+1\s+-$`, `^3 categories$`} {
					if !regexp.MustCompile(re).MatchString(lines[i]) {
						t.Errorf("line %d = %q, want %s", i+1, lines[i], re)
					}
					if n := utf8.RuneCountInString(lines[i]); n > 80 {
						t.Errorf("line %d has %d runes, more than 80", i+1, n)
					}
				}
			},
		},
		{
			name: "json", handler: handler, args: []string{"categories", "--json"}, requests: 1,
			check: func(t *testing.T, r result, _ []*http.Request) {
				var got api.CategoryList
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got.Categories) != 3 || *got.Categories[1].Parent != "jobs" {
					t.Errorf("--json: %v\n%s", err, r.stdout)
				}
			},
		},
		{
			name: "not the category list", args: []string{"categories"}, code: 2, requests: 1,
			handler: func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, map[string]int{"x": 1}) },
			stderr:  []string{"categories"},
		},
	})
}

func TestCategoriesUsageErrors(t *testing.T) {
	expectUsageErrors(t, []usageCase{
		{"categories with an argument", []string{"categories", "police"}, nil, "categories takes no arguments"},
	})
}
