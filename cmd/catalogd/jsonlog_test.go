package main

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

// record is one line of catalogd's output in JSON mode.
type record struct {
	Level, Msg    string
	Listen, Admin string
}

// jsonRecords parses every line of out as a JSON record with a level and
// a message, failing the test for each that is not.
func jsonRecords(t *testing.T, what, out string) []record {
	t.Helper()
	if out == "" {
		return nil
	}
	var recs []record
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Level == "" || r.Msg == "" {
			t.Errorf("%s: a line that is not a JSON record with level and msg: %q", what, line)
			continue
		}
		recs = append(recs, r)
	}
	return recs
}

// In JSON log mode every line catalogd writes, on stdout and stderr, is a
// JSON record: through a start on a server with a binary log (the binlog
// library's lines at debug level), a request, a change followed and a
// stop by SIGTERM.
func TestJSONLogEveryLineToTheStop(t *testing.T) {
	private := testdb.BinlogServer(t)
	dsn, _ := testdb.LoadOn(t, private, jobsShop())
	r := start(t, dsn, "CATALOG_LOG_FORMAT=json", "CATALOG_LOG_LEVEL=debug", "CATALOG_CHANGES=auto",
		"CATALOG_SITE_URL=https://shop.example")
	r.waitReadyz(t, http.StatusOK, 20*time.Second)
	r.readyzSays(t, 5*time.Second, "changes: binlog (")
	testdb.SavePrice(t, dsn, "police-radar", "44")
	r.waitPrice(t, "police-radar", "44.00", 15*time.Second)
	r.Stop(10 * time.Second)
	if code := r.exitCode(t, time.Second); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	out := jsonRecords(t, "stdout", r.Stdout.String())
	if len(out) != 1 || !strings.HasPrefix(out[0].Msg, "catalogd listening on ") || out[0].Listen != r.Public || out[0].Admin != r.Admin {
		t.Errorf("stdout: %+v, want the one listening record naming %s and %s", out, r.Public, r.Admin)
	}
	msgs := map[string]bool{}
	for _, rec := range jsonRecords(t, "stderr", r.Stderr.String()) {
		msgs[rec.Msg] = true
	}
	for _, want := range []string{"catalogd serving", "request", "shutting down"} {
		if !msgs[want] {
			t.Errorf("no JSON record %q on stderr:\n%s", want, r.Stderr.String())
		}
	}
}

// In JSON log mode a start refused — a setting catalogd cannot read, an
// address taken — is JSON records too, as are the answers of check and
// healthcheck; the format is known from the flag or its variable,
// whichever setting is wrong.
func TestJSONLogWhenStartFails(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	const dsn = "CATALOG_DSN=catalog@tcp(127.0.0.1:1)/wordpress"
	shop, _ := testdb.Load(t, jobsShop())
	free := "CATALOG_ADMIN_LISTEN=" + proctest.FreeAddr(t)
	serving := start(t, "catalog@tcp("+proctest.FreeAddr(t)+")/nothing", "CATALOG_LOG_FORMAT=json")
	tests := []struct {
		name   string
		env    []string
		args   []string
		code   int
		stdout string // the message of stdout's one record, its start
		stderr string // the message of stderr's first record, its start
	}{
		{"a bad variable", []string{dsn, "CATALOG_LOG_FORMAT=json", "CATALOG_NAMESPACE=Bad!"}, nil, 2, "",
			"catalogd: --namespace (CATALOG_NAMESPACE): want "},
		{"an unknown flag after the format's", []string{dsn}, []string{"--log-format", "json", "--nope"}, 2, "",
			"catalogd: unknown flag --nope"},
		{"the format by its variable, a flag before it wrong", []string{dsn, "CATALOG_LOG_FORMAT=json"}, []string{"--db-max-open", "many"}, 2, "",
			"catalogd: --db-max-open (CATALOG_DB_MAX_OPEN): "},
		{"the address taken", []string{dsn, "CATALOG_LOG_FORMAT=json", "CATALOG_LISTEN=" + held.Addr().String(), free}, nil, 1, "",
			"catalogd: listen on " + held.Addr().String()},
		{"check", []string{"CATALOG_DSN=" + shop, "CATALOG_LOG_FORMAT=json", "CATALOG_LISTEN=" + proctest.FreeAddr(t), free},
			[]string{"check"}, 0, "catalogd check: the settings are valid", "the database user can write"},
		{"check without a database", []string{dsn, "CATALOG_LOG_FORMAT=json", "CATALOG_LISTEN=" + proctest.FreeAddr(t), free},
			[]string{"check"}, 3, "", "catalogd: the settings are valid and "},
		{"healthcheck", []string{"CATALOG_LOG_FORMAT=json", "CATALOG_ADMIN_LISTEN=" + serving.Admin}, []string{"healthcheck"}, 1, "",
			"catalogd: not ready: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runSub(t, tt.env, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, o := range []struct{ what, out, want string }{{"stdout", stdout, tt.stdout}, {"stderr", stderr, tt.stderr}} {
				recs := jsonRecords(t, o.what, o.out)
				switch {
				case o.want == "" && len(recs) > 0:
					t.Errorf("%s: %+v, want nothing", o.what, recs)
				case o.want != "" && (len(recs) == 0 || !strings.HasPrefix(recs[0].Msg, o.want)):
					t.Errorf("%s: %+v, want a record %q…", o.what, recs, o.want)
				}
			}
		})
	}
}
