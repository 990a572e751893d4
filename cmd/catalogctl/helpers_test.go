package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/api"
	"catalogd/internal/demoshop"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// What the tests of every command share: the binaries, running catalogctl,
// a real catalogd on the demo shop, fake servers, and the runners of the
// tables each command's file fills.

// The binaries under test, built by TestMain: catalogctl, and catalogd to
// run it against.
var ctlBinary, serverBinary string

func TestMain(m *testing.M) {
	bins, remove, err := proctest.BuildTemp(map[string]string{"catalogctl": ".", "catalogd": "../catalogd"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctlBinary, serverBinary = bins["catalogctl"], bins["catalogd"]
	code := testdb.Run(m)
	remove()
	os.Exit(code)
}

// result is one run of the catalogctl binary.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// ctl runs the catalogctl binary with the arguments in env (nil: the
// test's environment without CATALOG_*).
func ctl(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ctlBinary, args...)
	if env == nil {
		env = proctest.Environ()
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("catalogctl %q still ran after 60s; stderr:\n%s", args, r.stderr)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run catalogctl %q: %v", args, err)
	}
	return r
}

// expect checks the exit code and that each stream holds the strings.
func (r result) expect(t *testing.T, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

// --- a real catalogd serving the demo shop ---

// startDemo loads the demo shop into a throwaway database, starts catalogd
// on it and returns the API's base URL once /readyz answers 200.
func startDemo(t *testing.T) string {
	t.Helper()
	dsn, _ := testdb.Load(t, demoshop.Shop())
	// A high advisory limit: the suite makes more requests in a minute
	// than the default 60, and --all would then wait out the window.
	c := proctest.MustStart(t, serverBinary, proctest.Options{DSN: dsn,
		Env: []string{"CATALOG_RATE_LIMIT=100000", "CATALOG_ACCESS_LOG=false"}, Stdout: io.Discard})
	if _, _, err := c.WaitReadyz(http.StatusOK, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	return c.API
}

// demoCase is one catalogctl run against the demo shop.
type demoCase struct {
	name   string
	args   []string
	code   int
	stdout []string
	stderr []string
	check  func(t *testing.T, r result)
}

// runDemoCases runs each case with env: on success nothing on stderr,
// on failure nothing on stdout.
func runDemoCases(t *testing.T, env []string, cases []demoCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := ctl(t, env, tt.args...)
			r.expect(t, tt.code, tt.stdout, tt.stderr)
			if tt.code == 0 && r.stderr != "" {
				t.Errorf("stderr not empty on success:\n%s", r.stderr)
			}
			if tt.code != 0 && r.stdout != "" {
				t.Errorf("stdout not empty on failure:\n%s", r.stdout)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// --- fake servers ---

// fakeAPI is an httptest server that counts requests and keeps their
// user agents and queries.
type fakeAPI struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []*http.Request
	handler func(n int, w http.ResponseWriter, r *http.Request)
}

func newFakeAPI(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{handler: h}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Clone(context.Background()))
		n := len(f.reqs)
		f.mu.Unlock()
		if f.handler == nil {
			http.Error(w, "no handler", http.StatusTeapot)
			return
		}
		f.handler(n, w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) base() string { return f.srv.URL + "/wp-json/shop/v1" }

func (f *fakeAPI) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

func ptr(s string) *string { return &s }

func fakeProduct(slug string) api.Product {
	return api.Product{Slug: slug, Name: strings.ToUpper(slug[:1]) + slug[1:], URL: "https://shop.example/product/" + slug + "/",
		Price: ptr("5.00"), RegularPrice: ptr("5.00"), Currency: "EUR", InStock: true, Purchasable: true,
		Categories: []string{"jobs"}, Frameworks: []string{"esx"}, Summary: "A fake product."}
}

var fakeIndex = api.Index{Name: "Test Shop", Currency: "EUR", ProductCount: 3, PublishedProductCount: 3,
	CatalogVisibleProductCount: 3, CategoryCount: 1, Endpoints: api.Endpoints{Catalog: "https://shop.example/c"}}

func writeJSONAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes the contract's Error.
func apiError(w http.ResponseWriter, status int, code, msg, hint string) {
	writeJSONAnswer(w, status, api.Error{Code: code, Message: msg, Data: api.ErrorData{Status: status, Hint: hint}})
}

// fakeCase is one catalogctl run against a fake server.
type fakeCase struct {
	name       string
	handler    func(n int, w http.ResponseWriter, r *http.Request)
	args       []string // after --base-url
	code       int
	requests   int // 0: not checked
	stdout     []string
	stderr     []string
	minElapsed time.Duration
	maxElapsed time.Duration
	check      func(t *testing.T, r result, reqs []*http.Request)
}

// runFakeCases runs each case against a fake server of its own: on
// failure nothing on stdout and stderr starts with "catalogctl: ".
func runFakeCases(t *testing.T, cases []fakeCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeAPI(t, tt.handler)
			r := ctl(t, nil, append([]string{"--base-url", fake.base()}, tt.args...)...)
			r.expect(t, tt.code, tt.stdout, tt.stderr)
			if tt.code != 0 {
				if r.stdout != "" {
					t.Errorf("stdout not empty on failure:\n%s", r.stdout)
				}
				if !strings.HasPrefix(r.stderr, "catalogctl: ") {
					t.Errorf("stderr does not start with catalogctl: %q", r.stderr)
				}
			}
			reqs := fake.requests()
			if tt.requests > 0 && len(reqs) != tt.requests {
				t.Errorf("%d requests, want %d", len(reqs), tt.requests)
			}
			if r.elapsed < tt.minElapsed {
				t.Errorf("took %v, want at least %v", r.elapsed, tt.minElapsed)
			}
			if tt.maxElapsed > 0 && r.elapsed > tt.maxElapsed {
				t.Errorf("took %v, want at most %v", r.elapsed, tt.maxElapsed)
			}
			if tt.check != nil {
				tt.check(t, r, reqs)
			}
		})
	}
}

// usageCase is a command line that catalogctl must refuse: exit 1, the
// message on stderr, and no request sent.
type usageCase struct {
	name   string
	args   []string // after --base-url, unless they set their own
	env    []string // nil: the test's environment without CATALOG_*
	stderr string
}

func expectUsageErrors(t *testing.T, cases []usageCase) {
	t.Helper()
	fake := newFakeAPI(t, nil)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if !contains(args, "--base-url") && tt.env == nil {
				args = append([]string{"--base-url", fake.base()}, args...)
			}
			r := ctl(t, tt.env, args...)
			r.expect(t, 1, nil, []string{tt.stderr, "--help' for usage."})
			if !strings.HasPrefix(r.stderr, "catalogctl: ") {
				t.Errorf("stderr does not start with catalogctl: %q", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty:\n%s", r.stdout)
			}
			if n := len(fake.requests()); n != 0 {
				t.Fatalf("a usage error sent %d requests", n)
			}
		})
	}
}

// inProcess is catalogctl run in the test's process with no environment,
// sleep in place of the wall clock's waits and stderr as given.
func inProcess(stdout, stderr io.Writer, sleep func(ctx context.Context, d time.Duration) error) *cli {
	return &cli{getenv: func(string) string { return "" }, stdout: stdout, stderr: stderr, sleep: sleep, now: time.Now}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
