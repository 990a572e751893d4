package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"catalogd/api"
	"catalogd/internal/proctest"
)

// TestAgainstCatalogd runs each command against one catalogd serving the
// demo shop; the cases are in the command's own test file.
func TestAgainstCatalogd(t *testing.T) {
	base := startDemo(t)
	env := proctest.Environ("CATALOG_BASE_URL=" + base)

	// The index's count is what --all must deliver.
	r := ctl(t, env, "catalog", "--json")
	r.expect(t, 0, nil, nil)
	var idx api.Index
	if err := json.Unmarshal([]byte(r.stdout), &idx); err != nil {
		t.Fatalf("catalog --json is not the index: %v\n%s", err, r.stdout)
	}
	if idx.ProductCount < 51 {
		t.Fatalf("product_count = %d; the demo has more than one page of 50", idx.ProductCount)
	}
	t.Run("catalog", func(t *testing.T) { runDemoCases(t, env, catalogCases(idx)) })
	t.Run("categories", func(t *testing.T) { runDemoCases(t, env, categoriesCases(idx, env)) })
	t.Run("products", func(t *testing.T) { runDemoCases(t, env, productsCases(idx)) })
	t.Run("product", func(t *testing.T) { runDemoCases(t, env, productCases()) })
}

// TestGlobalUsageErrors: the command line before the command, and the
// global options a command checks before its request.
func TestGlobalUsageErrors(t *testing.T) {
	expectUsageErrors(t, []usageCase{
		{"no command", nil, nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{"unknown global flag", []string{"--verbose", "catalog"}, nil, "catalogctl: unknown option --verbose\nRun 'catalogctl --help' for usage."},
		{"global flag after the command", []string{"catalog", "--timeout", "1s"}, nil, "catalogctl: --timeout is a global option: put it before the command (catalogctl --timeout … catalog)\nRun 'catalogctl catalog --help' for usage."},
		{"base URL with another scheme", []string{"--base-url", "ftp://shop.example/wp-json/shop/v1", "catalog"}, nil, `--base-url "ftp://shop.example/wp-json/shop/v1": want an http:// or https:// URL`},
		{"base URL without scheme", []string{"--base-url", "shop.example/wp-json/shop/v1", "catalog"}, nil, "want an http:// or https:// URL"},
		{"base URL without host", []string{"--base-url", "http:///wp-json/shop/v1", "catalog"}, nil, "the URL has no host"},
		{"base URL with a bad port", []string{"--base-url", "http://shop.example:port/", "catalog"}, nil, "not a URL"},
		{"base URL with a query", []string{"--base-url", "https://shop.example/wp-json/shop/v1?x=1", "catalog"}, nil, "must not have a query or fragment"},
		{"base URL empty", []string{"--base-url", "", "catalog"}, nil, "want an http:// or https:// URL"},
		{"base URL from the environment", []string{"catalog"}, proctest.Environ("CATALOG_BASE_URL=not a url"), `CATALOG_BASE_URL "not a url"`},
		{"timeout zero", []string{"--timeout", "0s", "catalog"}, nil, "--timeout must be positive"},
		{"timeout not a duration", []string{"--timeout", "soon", "catalog"}, nil, `catalogctl: --timeout "soon": want a duration like 5s or 500ms` + "\nRun 'catalogctl --help' for usage."},
		{"page without its value", []string{"products", "--page"}, nil, "catalogctl: --page needs a value\nRun 'catalogctl products --help' for usage."},
		{"user agent with a line break", []string{"--user-agent", "x\r\nX-Evil: 1", "catalog"}, nil, "--user-agent must not contain control characters"},
	})
}

func TestBaseURLFromEnvironment(t *testing.T) {
	fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, fakeIndex) })
	other := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, fakeIndex) })
	env := proctest.Environ("CATALOG_BASE_URL=" + fake.base() + "/")
	ctl(t, env, "catalog").expect(t, 0, []string{"Test Shop"}, nil)
	ctl(t, env, "--base-url", other.base(), "catalog").expect(t, 0, []string{"Test Shop"}, nil)
	if a, o := len(fake.requests()), len(other.requests()); a != 1 || o != 1 {
		t.Errorf("requests: %d from the variable, %d from the flag; want 1 each (the flag wins)", a, o)
	}
	if p := fake.requests()[0].URL.Path; p != "/wp-json/shop/v1/catalog" {
		t.Errorf("path %q: the trailing slash of the base URL was not trimmed", p)
	}
}

func TestRunInProcess(t *testing.T) {
	fake := newFakeAPI(t, func(n int, w http.ResponseWriter, r *http.Request) { writeJSONAnswer(w, 200, fakeProduct("k9-unit")) })
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "CATALOG_BASE_URL" {
			return fake.base()
		}
		return ""
	}
	code := run(context.Background(), []string{"product", "k9-unit", "--json"}, getenv, &stdout, &stderr)
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	var p api.Product
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil || p.Slug != "k9-unit" {
		t.Errorf("stdout %q: %v", stdout.String(), err)
	}
}
