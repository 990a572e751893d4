package monitoring_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"catalogd/deploy/internal/proxytest"
	"catalogd/internal/proctest"
)

// prometheus is a running Debian Prometheus with its own configuration and
// storage in a temporary directory.
type prometheus struct {
	URL    string // http://host:port
	output *proctest.SyncBuffer
	client *http.Client
}

// forRE is a rule's for: line.
var forRE = regexp.MustCompile(`(?m)^(\s+for: )\S+$`)

// quickRules is the rules file with every for: made 1s, so that an alert
// fires at the second evaluation where its condition holds instead of
// minutes later: the expressions are the shipped ones, unchanged.
func quickRules(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("catalogd.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(forRE.FindAll(b, -1)) == 0 {
		t.Fatal("catalogd.rules.yml has no for: to shorten")
	}
	path := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(path, forRE.ReplaceAll(b, []byte("${1}1s")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startPrometheus runs Prometheus scraping target (catalogd's admin
// listener, host:port) every second in a job named catalogd, with the
// rules of quickRules evaluated every second, and returns once it is ready.
func startPrometheus(t *testing.T, target string) *prometheus {
	t.Helper()
	bin := proxytest.Binary(t, "prometheus", "/usr/bin/prometheus", "prometheus")
	dir := t.TempDir()
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: catalogd
    static_configs:
      - targets: [%q]
`, quickRules(t, dir), target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := proctest.FreeAddr(t)
	p := &prometheus{URL: "http://" + listen, output: &proctest.SyncBuffer{}, client: &http.Client{Timeout: 5 * time.Second}}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+listen, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = p.output, p.output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		proctest.Terminate(cmd.Process, done, 10*time.Second)
		if t.Failed() {
			t.Logf("prometheus's output:\n%s", p.output.String())
		}
	})
	p.wait(t, 30*time.Second, "Prometheus ready", func() bool {
		resp, err := p.client.Get(p.URL + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return p
}

// wait polls cond every 100 ms until it holds; the test fails after within.
func (p *prometheus) wait(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// api GETs an API path into the data field of its answer.
func (p *prometheus) api(t *testing.T, path string, data any) {
	t.Helper()
	resp, err := p.client.Get(p.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	var answer struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &answer); err != nil || answer.Status != "success" {
		t.Fatalf("GET %s: %s %v: %.300s", path, resp.Status, err, b)
	}
	if err := json.Unmarshal(answer.Data, data); err != nil {
		t.Fatalf("GET %s: %v: %.300s", path, err, answer.Data)
	}
}

// alert is one of /api/v1/alerts.
type alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"` // pending, firing
}

// alerts are the alerts pending or firing, by name.
func (p *prometheus) alerts(t *testing.T) map[string]alert {
	t.Helper()
	var data struct {
		Alerts []alert `json:"alerts"`
	}
	p.api(t, "/api/v1/alerts", &data)
	out := map[string]alert{}
	for _, a := range data.Alerts {
		out[a.Labels["alertname"]] = a
	}
	return out
}

// query runs an instant query and returns how many series it gives.
func (p *prometheus) query(t *testing.T, q string) int {
	t.Helper()
	var data struct {
		Result []json.RawMessage `json:"result"`
	}
	p.api(t, "/api/v1/query?query="+url.QueryEscape(q), &data)
	return len(data.Result)
}

// evaluatedSince waits until every rule has been evaluated after since.
func (p *prometheus) evaluatedSince(t *testing.T, since time.Time) {
	t.Helper()
	p.wait(t, 30*time.Second, "every rule evaluated again", func() bool {
		var data struct {
			Groups []struct {
				Rules []struct {
					Name           string    `json:"name"`
					Health         string    `json:"health"`
					LastError      string    `json:"lastError"`
					LastEvaluation time.Time `json:"lastEvaluation"`
				} `json:"rules"`
			} `json:"groups"`
		}
		p.api(t, "/api/v1/rules", &data)
		n := 0
		for _, g := range data.Groups {
			for _, r := range g.Rules {
				if r.Health == "err" {
					t.Fatalf("rule %s: %s", r.Name, r.LastError)
				}
				if !r.LastEvaluation.After(since) {
					return false
				}
				n++
			}
		}
		return n > 0
	})
}
