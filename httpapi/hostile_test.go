package httpapi_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/httpapi"
	"catalogd/internal/testdb"
)

// Hostile requests, sent byte for byte over a real TCP connection to the
// server configured as cmd/catalogd configures its public listener: each
// gets a clean 4xx (a JSON error when it reaches the API; net/http's own
// answer when it never does), or a 200 where the request is legitimately
// valid; never a 500; the server keeps answering normal requests, and the
// database is unchanged.

// publicServer starts the handler behind an http.Server configured like
// cmd/catalogd's public listener (main.go).
func publicServer(t *testing.T, h http.Handler, readHeaderTimeout time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadHeaderTimeout = readHeaderTimeout
	srv.Config.ReadTimeout = 10 * time.Second
	srv.Config.WriteTimeout = 30 * time.Second
	srv.Config.IdleTimeout = 120 * time.Second
	srv.Config.MaxHeaderBytes = 16 << 10
	srv.Config.ErrorLog = slog.NewLogLogger(slog.New(slog.NewTextHandler(io.Discard, nil)).Handler(), slog.LevelWarn)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// hostileServer serves the fixture shop; raw is a pool on its database.
func hostileServer(t *testing.T) (*httptest.Server, *sql.DB) {
	t.Helper()
	dsn, raw := testdb.Load(t, newShop())
	db := openDB(t, dsn, "wp_", 5*time.Second)
	cat := catalog.New(db, catalog.Config{Now: func() time.Time { return now }})
	h := httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return publicServer(t, h, 5*time.Second), raw
}

// rawAnswer is what came back for raw bytes.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
}

// sendRaw writes req on a new connection (concurrently with reading, as a
// server may answer before it has read everything) and reads one response.
func sendRaw(t *testing.T, addr, method string, req []byte) (rawAnswer, error) {
	t.Helper()
	start := time.Now()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return rawAnswer{}, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() {
		// A server that answered early may reset the connection before
		// everything is written: the answer is what counts.
		_, _ = conn.Write(req)
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		return rawAnswer{}, err
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" && method != "HEAD" && resp.StatusCode != http.StatusNotModified {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return rawAnswer{}, fmt.Errorf("gzip: %w", err)
		}
		r = zr
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return rawAnswer{}, fmt.Errorf("read body: %w", err)
	}
	return rawAnswer{status: resp.StatusCode, header: resp.Header, body: body, took: time.Since(start)}, nil
}

// request builds an HTTP/1.1 request with a Host header, closing the
// connection after the answer; extra lines are added as they are.
func request(method, target string, extra ...string) []byte {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: shop.example\r\n")
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	return []byte(b.String())
}

// hostile is one row of the table.
type hostile struct {
	name   string
	method string // of the request line; GET when empty (for reading HEAD answers)
	raw    []byte
	want   []int // acceptable statuses
	// byNetHTTP: net/http answers itself, before any handler runs, with
	// its own plain-text body; the API never sees the request.
	byNetHTTP bool
}

// sqlPayloads are classic SQL injection strings.
var sqlPayloads = []string{
	`' OR '1'='1`,
	`1' OR 1=1 -- `,
	`1; DROP TABLE wp_posts; --`,
	`' UNION SELECT user_login, user_pass FROM wp_users -- `,
	`1 AND SLEEP(3)`,
	`'; UPDATE wp_posts SET post_status='publish'; --`,
	`\' OR 1=1 #`,
	`%' OR post_status LIKE '%`,
	`1) OR (1=1`,
	`" OR ""="`,
	"\xbf' OR 1=1 -- ",
	`police-radar' AND (SELECT COUNT(*) FROM wp_options) > 0 -- `,
}

func hostileTable() []hostile {
	const products = base + "/catalog/products"
	get := func(target string, extra ...string) []byte { return request("GET", target, extra...) }
	var tt []hostile
	add := func(name string, raw []byte, want ...int) {
		tt = append(tt, hostile{name: name, raw: raw, want: want})
	}
	byNet := func(name string, raw []byte, want int) {
		tt = append(tt, hostile{name: name, raw: raw, want: []int{want}, byNetHTTP: true})
	}

	// SQL injection in every parameter and in the slug.
	for i, p := range sqlPayloads {
		q := url.QueryEscape(p)
		add(fmt.Sprintf("sql %d in page", i), get(products+"?page="+q), 400)
		add(fmt.Sprintf("sql %d in per_page", i), get(products+"?per_page="+q), 400)
		add(fmt.Sprintf("sql %d in category", i), get(products+"?category="+q), 400)
		add(fmt.Sprintf("sql %d in framework", i), get(products+"?framework="+q), 400)
		add(fmt.Sprintf("sql %d in the slug", i), get(products+"/"+url.PathEscape(p)), 400)
	}
	add("sql in an unknown parameter", get(products+"?q="+url.QueryEscape(sqlPayloads[0])), 200)
	add("sql in a parameter name", get(products+"?"+url.QueryEscape("page' OR 1=1 --")+"=1"), 200)
	add("sql in X-Forwarded-For", get(base+"/catalog", "X-Forwarded-For: ' OR 1=1 --, 999.999.999.999, ::::::"), 200)
	add("sql in User-Agent", get(base+"/catalog", "User-Agent: ' OR 1=1; DROP TABLE wp_posts; --"), 200)
	add("sql in If-None-Match", get(base+"/catalog", `If-None-Match: "' OR 1=1 --"`), 200)
	add("sql in Cookie", get(base+"/catalog", "Cookie: wordpress_logged_in=' OR 1=1 --"), 200)
	add("sql in Accept-Encoding", get(base+"/catalog", "Accept-Encoding: gzip;q=' OR 1=1"), 200)
	add("sql in the namespace", get("/wp-json/"+url.PathEscape("shop' OR 1=1 --")+"/v1/catalog"), 404)

	// Path traversal.
	for _, p := range []string{
		products + "/../../../../etc/passwd",
		"/../../etc/passwd",
		products + "/..%2F..%2F..%2Fwp-config.php",
		products + "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
		"/openapi.json/../wp-config.php",
		base + "/../../../wp-config.php",
		"/llms.txt/..%2f..%2fetc/passwd",
		"/.well-known/../wp-config.php",
		products + "/police-radar/..%2f..%2fcategories",
		"//wp-json/shop/v1/catalog",
		"/wp-json/shop/v1/./catalog",
		"/%2e%2e/%2e%2e/%2e%2e/proc/self/environ",
	} {
		add("traversal "+p, get(p), 404)
	}
	add(`traversal with backslashes`, get(products+`/..\..\..\windows\win.ini`), 400)
	// Decoded once by net/http, this is "%2e%2e%2fetc%2fpasswd": a slug in
	// WordPress's percent-encoded form, looked up as one and not found.
	add("traversal double-encoded", get(products+"/%252e%252e%252fetc%252fpasswd"), 404)

	// Encoded slashes: routed on the decoded path, as gorilla/mux does.
	add("%2F inside the slug", get(products+"/police%2Fradar"), 404)
	add("%2F between route segments", get(base+"/catalog%2Fproducts"), 200, 404)
	add("%2F in the namespace", get("/wp-json%2Fshop%2Fv1%2Fcatalog"), 200, 404)
	add("%2F as the slug", get(products+"/%2F"), 200, 404)
	add("%2F in category", get(products+"?category=jobs%2Fpolice"), 400)
	add("%5C in the slug", get(products+"/police%5Cradar"), 400)

	// NULs.
	add("%00 after page", get(products+"?page=1%00"), 400)
	add("%00 as category", get(products+"?category=%00"), 400)
	add("%00 after framework", get(products+"?framework=esx%00"), 400)
	add("%00 after the slug", get(products+"/police-radar%00"), 400)
	add("%00 in the slug", get(products+"/police%00radar"), 400)
	add("%00 in the path", get(base+"/catalog%00"), 404)
	add("%00 as per_page", get(products+"?per_page=%00%00%00"), 400)
	add("%00 as a parameter name", get(products+"?%00=1"), 200)
	byNet("raw NUL in the request line", []byte("GET "+products+"/police\x00radar HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400)
	byNet("raw NUL in a header", get(base+"/catalog", "X-Junk: a\x00b"), 400)

	// Invalid UTF-8.
	add("category %ff%fe", get(products+"?category=%ff%fe"), 400)
	add("category %c3%28", get(products+"?category=%c3%28"), 400)
	add("framework surrogate", get(products+"?framework=%ed%a0%80"), 400)
	add("slug %c3%28", get(products+"/%c3%28"), 400)
	add("slug overlong slash %c0%af", get(products+"/%c0%af"), 400)
	add("raw 0xff in the slug", get(products+"/\xff\xfe"), 400)
	add("raw 0xff in category", get(products+"?category=\xff"), 400)
	add("page as a fullwidth digit", get(products+"?page=%ef%bc%91"), 400)
	add("page as an Arabic-Indic digit", get(products+"?page=%d9%a1"), 400)
	add("invalid UTF-8 in User-Agent", get(base+"/catalog", "User-Agent: \xff\xfe\xc3("), 200)
	add("a CJK slug no product has", get(products+"/%E6%9D%B1%E4%BA%AC"), 404)

	// Overlong query strings, paths and headers.
	add("12 KiB unknown parameter", get(products+"?x="+strings.Repeat("a", 12<<10)), 200)
	add("14 KiB category", get(products+"?category="+strings.Repeat("a", 14<<10)), 400)
	add("10 KiB slug", get(products+"/"+strings.Repeat("a", 10<<10)), 400)
	add("14 KiB path", get(strings.Repeat("/a", 7<<10)), 404)
	add("10 KiB If-None-Match", get(base+"/catalog", "If-None-Match: "+strings.Repeat(`"x", `, 2<<10)), 200)
	add("10 KiB X-Forwarded-For", get(base+"/catalog", "X-Forwarded-For: "+strings.Repeat("10.0.0.1, ", 1<<10)), 200)
	add("12 KiB Cookie", get(base+"/catalog", "Cookie: c="+strings.Repeat("z", 12<<10)), 200)
	byNet("32 KiB query string", get(products+"?x="+strings.Repeat("a", 32<<10)), 431)
	byNet("1 MiB query string", get(products+"?x="+strings.Repeat("a", 1<<20)), 431)
	byNet("32 KiB header", get(base+"/catalog", "X-Junk: "+strings.Repeat("j", 32<<10)), 431)
	var many []string
	for i := range 4000 {
		many = append(many, fmt.Sprintf("X-H-%d: v", i))
	}
	byNet("4000 headers", get(base+"/catalog", many...), 431)
	byNet("32 KiB path", get(strings.Repeat("/a", 16<<10)), 431)

	// Thousands of parameters, repeated parameters.
	join := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, "&")
	}
	add("1500 distinct unknown parameters", get(products+"?"+join(1500, func(i int) string { return fmt.Sprintf("a%d=1", i) })), 200)
	add("2000 × page=1", get(products+"?"+join(2000, func(int) string { return "page=1" })), 400)
	add("1000 × category=jobs", get(products+"?"+join(1000, func(int) string { return "category=jobs" })), 400)
	add("1000 × framework=esx", get(products+"?"+join(1000, func(int) string { return "framework=esx" })), 400)
	add("5000 empty pairs", get(products+"?"+strings.Repeat("&", 5000)), 200)
	add("3000 bare =", get(products+"?"+join(3000, func(int) string { return "=" })), 200)
	add("1000 unknown and per_page=51", get(products+"?"+join(1000, func(i int) string { return fmt.Sprintf("b%d=", i) })+"&per_page=51"), 400)
	add("page twice", get(products+"?page=1&page=1"), 400)
	add("per_page twice", get(products+"?per_page=20&per_page=20"), 400)
	add("category twice", get(products+"?category=jobs&category=police"), 400)
	add("framework twice", get(products+"?framework=esx&framework=esx"), 400)
	add("Page is not page", get(products+"?page=1&Page=2"), 200)
	add("page with a bad escape", get(products+"?page=%zz"), 400)

	// Huge and odd page numbers.
	for _, p := range []string{"99999999999999999999999999", "9223372036854775807", "9223372036854775808",
		"18446744073709551617", "2147483648", "1e9", "0x10", "-0", "%201", "1%20", "+1", "1000000&per_page=1"} {
		add("page="+p, get(products+"?page="+p), 400)
	}
	add("per_page=9223372036854775807", get(products+"?per_page=9223372036854775807"), 400)
	add("page=00001 is a plain number", get(products+"?page=00001"), 200)

	// Methods other than GET.
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "TRACE", "PROPFIND", "MKCOL", "FOO", "get", "GeT", "CONNECT"} {
		tt = append(tt, hostile{name: "method " + m, method: m, raw: request(m, products), want: []int{405}})
	}
	tt = append(tt,
		hostile{name: "POST with 300 KiB body", method: "POST", want: []int{405},
			raw: append(request("POST", base+"/catalog", "Content-Type: application/json", fmt.Sprintf("Content-Length: %d", 300<<10)),
				strings.Repeat("{", 300<<10)...)},
		hostile{name: "DELETE with an SQL body", method: "DELETE", want: []int{405},
			raw: append(request("DELETE", products+"/police-radar", "Content-Length: 23"), "DROP TABLE wp_posts; --"...)},
		hostile{name: "POST to openapi.json", method: "POST", raw: request("POST", "/openapi.json"), want: []int{405}},
		hostile{name: "POST to a path that does not exist", method: "POST", raw: request("POST", "/nope"), want: []int{404, 405}},
		hostile{name: "OPTIONS", method: "OPTIONS", raw: request("OPTIONS", products), want: []int{204}},
		hostile{name: "HEAD", method: "HEAD", raw: request("HEAD", products), want: []int{200}},
	)

	// The request line and headers themselves.
	byNet("no Host in HTTP/1.1", []byte("GET "+base+"/catalog HTTP/1.1\r\nConnection: close\r\n\r\n"), 400)
	add("HTTP/1.0 without Host", []byte("GET "+base+"/catalog HTTP/1.0\r\n\r\n"), 200)
	byNet("two Host headers", get(base+"/catalog", "Host: evil.example"), 400)
	byNet("negative Content-Length", get(base+"/catalog", "Content-Length: -1"), 400)
	byNet("Content-Length not a number", get(base+"/catalog", "Content-Length: abc"), 400)
	byNet("a target without a slash", request("GET", "wp-json/shop/v1/catalog"), 400)
	byNet("a space in the target", request("GET", base+"/catalog/products/a b"), 400)
	add("absolute-form target", request("GET", "http://evil.example"+base+"/catalog"), 200)
	add("asterisk target", request("GET", "*"), 404)
	add("Expect: 100-continue", get(base+"/catalog", "Expect: 100-continue"), 200)
	add("If-None-Match: *", get(base+"/catalog", "If-None-Match: *"), 304)
	add("Range", get(base+"/catalog", "Range: bytes=0-10"), 200)
	add("Accept: text/html only", get(base+"/catalog/nope", "Accept: text/html"), 404)
	// net/http answers these itself with the 5xx the HTTP RFCs prescribe
	// (RFC 9112 §6.1: an unknown transfer coding is 501; a major version
	// it does not implement, 505) before any handler runs. They are listed
	// so that a change in that behaviour is seen.
	byNet("an unknown transfer coding", get(base+"/catalog", "Transfer-Encoding: gzip"), 501)
	byNet("HTTP/2.0 in plain text", []byte("GET "+base+"/catalog HTTP/2.0\r\nHost: x\r\n\r\n"), 505)
	return tt
}

// leakWords may not appear in any answer: they betray SQL, the driver, Go
// or the file system behind the API.
var leakWords = []string{"sql syntax", "you have an error", "mysql", "mariadb", "driver:", "goroutine", ".go:",
	"/work/", "error 1064", "sqlx", "wpdb", "catalogd_test", "panic"}

// tableRows counts every table's rows and checksums them.
func tableRows(t *testing.T, raw *sql.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := raw.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if len(names) < 5 {
		t.Fatalf("only %d tables: %v", len(names), names)
	}
	out := map[string]string{}
	for _, n := range names {
		var count int64
		if err := raw.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+n+"`").Scan(&count); err != nil {
			t.Fatal(err)
		}
		var table string
		var sum sql.NullInt64
		if err := raw.QueryRowContext(ctx, "CHECKSUM TABLE `"+n+"`").Scan(&table, &sum); err != nil {
			t.Fatal(err)
		}
		out[n] = fmt.Sprintf("%d rows, checksum %d", count, sum.Int64)
	}
	return out
}

func TestHostileRequests(t *testing.T) {
	srv, raw := hostileServer(t)
	addr := srv.Listener.Addr().String()
	before := tableRows(t, raw)
	table := hostileTable()
	if len(table) < 100 {
		t.Fatalf("only %d hostile requests", len(table))
	}
	t.Logf("%d hostile requests", len(table))

	normal := func(t *testing.T) {
		t.Helper()
		a, err := sendRaw(t, addr, "GET", request("GET", base+"/catalog/products"))
		if err != nil {
			t.Fatalf("normal request after it: %v", err)
		}
		if a.status != http.StatusOK {
			t.Fatalf("normal request after it: %d %s", a.status, a.body)
		}
		if got := productSlugs(t, a.body); !slices.Equal(got, visibleSlugs) {
			t.Fatalf("normal request after it: products %v, want %v", got, visibleSlugs)
		}
	}
	for _, tc := range table {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = "GET"
			}
			a, err := sendRaw(t, addr, method, tc.raw)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			t.Logf("%d %s", a.status, a.header.Get("Content-Type"))
			if a.status >= 500 && !tc.byNetHTTP {
				t.Errorf("server error %d: %s", a.status, a.body)
			}
			if !slices.Contains(tc.want, a.status) {
				t.Errorf("status %d, want one of %v: %.300s", a.status, tc.want, a.body)
			}
			if a.took > 2*time.Second {
				t.Errorf("took %v", a.took)
			}
			lower := strings.ToLower(string(a.body))
			for _, w := range leakWords {
				if strings.Contains(lower, w) {
					t.Errorf("answer holds %q: %.300s", w, a.body)
				}
			}
			switch {
			case tc.byNetHTTP:
				// net/http's own answer: the API never saw the request.
			case a.status == http.StatusNoContent || a.status == http.StatusNotModified || method == "HEAD":
				if len(a.body) != 0 {
					t.Errorf("%d with a body: %.200s", a.status, a.body)
				}
			default:
				if ct := a.header.Get("Content-Type"); ct != "application/json; charset=UTF-8" {
					t.Errorf("Content-Type %q, want application/json; charset=UTF-8", ct)
				}
				var e struct {
					Code    string `json:"code"`
					Message string `json:"message"`
					Data    struct {
						Status int `json:"status"`
					} `json:"data"`
				}
				if err := json.Unmarshal(a.body, &e); err != nil {
					t.Fatalf("not JSON: %v: %.300q", err, a.body)
				}
				if a.status >= 400 && (!strings.HasPrefix(e.Code, "shop_") || e.Message == "" || e.Data.Status != a.status) {
					t.Errorf("not the contract's error: %.300s", a.body)
				}
			}
			normal(t)
		})
	}
	if after := tableRows(t, raw); !mapsEqual(before, after) {
		t.Errorf("the database changed:\nbefore %v\nafter  %v", before, after)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSlowloris: clients that send their headers one byte per second are
// cut by ReadHeaderTimeout, and meanwhile others are served.
func TestSlowloris(t *testing.T) {
	dsn := loadShop(t)
	cat := catalog.New(openDB(t, dsn, "wp_", 5*time.Second), catalog.Config{Now: func() time.Time { return now }})
	h := httpapi.NewServer(httpapi.Deps{Catalog: cat, SiteURL: siteURL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	const timeout = time.Second
	srv := publicServer(t, h, timeout)
	addr := srv.Listener.Addr().String()

	const clients = 20
	line := []byte("GET " + base + "/catalog HTTP/1.1\r\nHost: shop.example\r\nX-Slow: " + strings.Repeat("s", 64))
	var wg sync.WaitGroup
	cut := make([]time.Duration, clients)
	sent := make([]int, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Errorf("dial: %v", err)
				return
			}
			defer conn.Close()
			start := time.Now()
			closed := make(chan struct{})
			go func() {
				// Blocks until the server closes the connection.
				_, _ = io.Copy(io.Discard, conn)
				close(closed)
			}()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
		dribble:
			for _, b := range line {
				if _, err := conn.Write([]byte{b}); err != nil {
					break
				}
				sent[i]++
				select {
				case <-closed:
					break dribble
				case <-tick.C:
				}
			}
			select {
			case <-closed:
				cut[i] = time.Since(start)
			case <-time.After(10 * time.Second):
				cut[i] = -1
			}
		}()
	}
	// While they dribble, a normal client is served at once.
	time.Sleep(300 * time.Millisecond)
	resp, err := http.Get(srv.URL + base + "/catalog")
	if err != nil {
		t.Fatalf("normal request during the slowloris: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("normal request during the slowloris: %d", resp.StatusCode)
	}
	wg.Wait()
	for i, d := range cut {
		switch {
		case d < 0:
			t.Errorf("client %d: still connected after 10s, %d bytes sent", i, sent[i])
		case d > timeout+2*time.Second:
			t.Errorf("client %d: cut after %v, %d bytes sent; ReadHeaderTimeout is %v", i, d, sent[i], timeout)
		case sent[i] >= len(line):
			t.Errorf("client %d: sent its whole header", i)
		}
	}
	t.Logf("slowloris clients cut after %v (first) with %d bytes sent", cut[0], sent[0])
}
