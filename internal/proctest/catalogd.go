package proctest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Catalogd is a running catalogd on loopback addresses of its own.
type Catalogd struct {
	*Proc
	Public, Admin string // host:port of the public and the admin listener
	API           string // http://Public/wp-json/shop/v1
	AdminURL      string // http://Admin
	Client        *http.Client
}

// Options of a catalogd to start.
type Options struct {
	DSN string
	// Env holds more settings (CATALOG_SITE_URL=..., ...); the caller's own
	// CATALOG_* settings are never passed on.
	Env []string
	// Stdout and Stderr receive the process's output; nil keeps it in the
	// Proc's buffers.
	Stdout, Stderr io.Writer
	// PollEvery is how often the waits try again (default
	// DefaultPollEvery).
	PollEvery time.Duration
}

// Launch starts bin with CATALOG_DSN, both listeners on free loopback
// addresses and the settings of o, and returns at once.
func Launch(bin string, o Options) (*Catalogd, error) {
	addrs, err := FreeAddresses(2)
	if err != nil {
		return nil, err
	}
	public, admin := addrs[0], addrs[1]
	// No drain before the stop: nothing in front of a test's catalogd
	// needs time to move off it; a test of the drain sets its own (o.Env
	// comes after, and the last of a variable wins).
	env := Environ(append([]string{"CATALOG_DSN=" + o.DSN, "CATALOG_LISTEN=" + public, "CATALOG_ADMIN_LISTEN=" + admin,
		"CATALOG_SHUTDOWN_DRAIN=0s"}, o.Env...)...)
	p, err := StartProc(bin, env, o.Stdout, o.Stderr)
	if err != nil {
		return nil, err
	}
	if o.PollEvery > 0 {
		p.PollEvery = o.PollEvery
	}
	return &Catalogd{Proc: p, Public: public, Admin: admin, API: "http://" + public + "/wp-json/shop/v1",
		AdminURL: "http://" + admin, Client: &http.Client{Timeout: 10 * time.Second}}, nil
}

// Start is Launch, then WaitHealthy for 10s: the process is up, though its
// database may not be. The process is killed when it does not get there.
func Start(bin string, o Options) (*Catalogd, error) {
	c, err := Launch(bin, o)
	if err != nil {
		return nil, err
	}
	if err := c.WaitHealthy(10 * time.Second); err != nil {
		c.Kill()
		return nil, err
	}
	return c, nil
}

// MustLaunch is Launch for a test: the test fails when the process cannot
// start, and the process is killed when the test ends.
func MustLaunch(t testing.TB, bin string, o Options) *Catalogd {
	t.Helper()
	c, err := Launch(bin, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	return c
}

// MustStart is Start for a test, with MustLaunch's cleanup.
func MustStart(t testing.TB, bin string, o Options) *Catalogd {
	t.Helper()
	c := MustLaunch(t, bin, o)
	if err := c.WaitHealthy(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// WaitHealthy waits until /healthz answers 200.
func (c *Catalogd) WaitHealthy(within time.Duration) error {
	err := c.Poll(within, func() bool {
		status, _, err := c.Get(c.AdminURL + "/healthz")
		return err == nil && status == http.StatusOK
	})
	if err != nil {
		return fmt.Errorf("catalogd's /healthz not 200: %w; stderr:\n%s", err, c.Stderr.String())
	}
	return nil
}

// Get returns the status and body of a GET.
func (c *Catalogd) Get(url string) (int, string, error) {
	resp, err := c.Client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// Readyz is /readyz's status and text.
func (c *Catalogd) Readyz() (int, string, error) { return c.Get(c.AdminURL + "/readyz") }

// Settled is the status WaitReadyz takes for "any": /readyz answers, after
// the first whole read of the catalog has ended, well or not.
const Settled = 0

// WaitReadyz polls /readyz until it answers want (or, for Settled, until
// the first whole read has ended) and returns its last status and text.
func (c *Catalogd) WaitReadyz(want int, within time.Duration) (int, string, error) {
	var (
		status int
		body   string
		err    error
	)
	perr := c.Poll(within, func() bool {
		status, body, err = c.Readyz()
		if want == Settled {
			return err == nil && !strings.Contains(body, "not in yet")
		}
		return err == nil && status == want
	})
	if perr != nil {
		return status, body, fmt.Errorf("/readyz still %d %q (%v), not %s: %w; stderr:\n%s", status,
			strings.TrimSpace(body), err, wanted(want), perr, c.Stderr.String())
	}
	return status, body, nil
}

func wanted(status int) string {
	if status == Settled {
		return "settled"
	}
	return fmt.Sprint(status)
}

// Metrics scrapes the admin listener's /metrics.
func (c *Catalogd) Metrics() (Metrics, error) { return Scrape(c.Client, c.AdminURL+"/metrics") }
