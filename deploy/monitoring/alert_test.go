package monitoring_test

import (
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/deploy/internal/proxytest"
	"catalogd/internal/demoshop"
	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
)

var update = flag.Bool("update", false, "rewrite metrics.txt with the series the running catalogd exports")

// TestBlindAlertFiresForReal: Debian's Prometheus scrapes a real catalogd
// that follows a private MariaDB's binary log and purges a real Varnish,
// with catalogd.rules.yml loaded (every for: shortened to 1s, the
// expressions as shipped). CatalogdChangeFeedBlind stays silent while the
// log is followed, as do the alerts a healthy catalogd never raises, and
// it fires once the server logs the shop's changes as
// statements (binlog_format=STATEMENT), which catalogd cannot follow.
// Along the way every series catalogd exports has appeared, and they are
// the ones metrics.txt lists, which the dashboard and rules check
// (deploy/checks) holds their expressions to: a renamed metric fails here.
func TestBlindAlertFiresForReal(t *testing.T) {
	private := testdb.BinlogServer(t)
	admin := testdb.Open(t, private)
	dsn, _ := testdb.LoadOn(t, private, demoshop.Shop())
	varnishBin := proxytest.Binary(t, "varnish", "/usr/sbin/varnishd", "varnishd")
	if matches, _ := filepath.Glob("/usr/lib/*/varnish/vmods/libvmod_xkey.so"); len(matches) == 0 {
		testdb.Lacking(t, "the xkey vmod is not installed (.ci/run installs Debian's varnish-modules)")
	}
	listen, purge := proctest.FreeAddr(t), proctest.FreeAddr(t)
	secret, err := proctest.PurgeSecret(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := proctest.MustStart(t, catalogdBin, proctest.Options{DSN: dsn, Env: []string{"CATALOG_CHANGES=auto",
		"CATALOG_POLL_INTERVAL=200ms", "CATALOG_PURGE_VARNISH=http://" + purge, "CATALOG_PURGE_VARNISH_SECRET_FILE=" + secret,
		"CATALOG_SITE_URL=https://shop.example"}})
	if _, body, err := c.WaitReadyz(http.StatusOK, 30*time.Second); err != nil {
		t.Fatal(err)
	} else if !strings.Contains(body, "changes: binlog (") {
		t.Fatalf("catalogd does not follow the binary log:\n%s", body)
	}
	// Varnish starts once catalogd answers (its start checks a request
	// through); the purges sent before are tried again until it is up.
	v, err := proctest.StartVarnish(proctest.VarnishOptions{Bin: varnishBin, VCL: "../varnish/catalogd.vcl",
		DropIn: "../varnish/varnish.service.d/catalogd.conf", Listen: listen, PurgeListen: purge, Backend: c.Public,
		PurgeSecretFile: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Stop)
	prom := startPrometheus(t, c.Admin)

	// Silent: scraped while the binary log is followed, every rule
	// evaluated since.
	prom.wait(t, 30*time.Second, "Prometheus has catalogd's series", func() bool {
		return prom.query(t, `catalogd_change_source{job="catalogd", source="binlog"} == 1`) == 1
	})
	prom.evaluatedSince(t, time.Now())
	alerts := prom.alerts(t)
	if a, ok := alerts["CatalogdChangeFeedBlind"]; ok {
		t.Fatalf("CatalogdChangeFeedBlind is %s while the binary log is followed: %v", a.State, a.Annotations)
	}
	// Nor any alert a healthy catalogd must never raise, whatever the
	// machine: the snapshot's age held to the interval catalogd reports,
	// its memory to the limit it reads from its cgroup.
	for _, name := range []string{"CatalogdDown", "CatalogdAbsent", "CatalogdNotReady", "CatalogdSnapshotStale",
		"CatalogdLatencyHigh", "CatalogdMemoryNearLimit"} {
		if a, ok := alerts[name]; ok {
			t.Errorf("%s is %s on a healthy catalogd: %v", name, a.State, a.Annotations)
		}
	}

	// A change followed through the log, purged at Varnish: the change
	// feed's and the purger's series appear.
	testdb.SavePrice(t, dsn, "dispatch-system", "77")
	waitMetric(t, c, "catalogd_edge_purge_lag_seconds_count", 30*time.Second)

	// Blind: the server logs statements. The next save is seen by polling;
	// the alert fires.
	testdb.SetGlobal(t, admin, "binlog_format", "STATEMENT")
	testdb.SavePrice(t, dsn, "dispatch-system", "78")
	var fired alert
	prom.wait(t, 60*time.Second, "CatalogdChangeFeedBlind firing", func() bool {
		fired = prom.alerts(t)["CatalogdChangeFeedBlind"]
		return fired.State == "firing"
	})
	if fired.Labels["instance"] != c.Admin || fired.Labels["severity"] != "warning" ||
		!strings.Contains(fired.Annotations["summary"], c.Admin) {
		t.Errorf("the alert names %v, %v; want catalogd's instance %s and severity warning",
			fired.Labels, fired.Annotations, c.Admin)
	}
	t.Logf("fired: %s", fired.Annotations["summary"])

	t.Run("the series are metrics.txt's", func(t *testing.T) {
		waitMetric(t, c, "catalogd_change_polls_total", 30*time.Second)
		checkListed(t, c)
	})
}

// waitMetric waits until catalogd's /metrics has the series, above 0.
func waitMetric(t *testing.T, c *proctest.Catalogd, name string, within time.Duration) {
	t.Helper()
	var m proctest.Metrics
	if err := c.Poll(within, func() bool {
		var err error
		m, err = c.Metrics()
		return err == nil && m[name] > 0
	}); err != nil {
		t.Fatalf("%s not above 0 on /metrics: %v; stderr:\n%s", name, err, c.Stderr.String())
	}
}

// checkListed compares the series names on catalogd's /metrics with
// metrics.txt (-update rewrites it).
func checkListed(t *testing.T, c *proctest.Catalogd) {
	t.Helper()
	_, page, err := c.Get(c.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(page, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, _, _ := strings.Cut(l, "{")
		name, _, _ = strings.Cut(name, " ")
		names = append(names, name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	got := strings.Join(names, "\n") + "\n"
	if *update {
		if err := os.WriteFile("metrics.txt", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile("metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Fields(string(b))
	var gone, added []string
	for _, n := range listed {
		if !slices.Contains(names, n) {
			gone = append(gone, n)
		}
	}
	for _, n := range names {
		if !slices.Contains(listed, n) {
			added = append(added, n)
		}
	}
	if len(gone)+len(added) > 0 {
		t.Errorf("catalogd's series differ from metrics.txt: listed but not exported %q; exported but not listed %q.\n"+
			"Fix the rules and the dashboard that use a renamed series, then rewrite the list: "+
			"go test ./deploy/monitoring -run TestBlindAlertFiresForReal -update", gone, added)
	}
}
