// Command catalogbench measures catalogd at shop scale and writes a
// Markdown report: the summary first (uncached list and single
// product latency, cached throughput beside a plain net/http server serving
// the same bytes, statements per request, RSS with a full cache, the
// start-up timeline), then each shop's detail and the top of its heap
// profile. Every figure is the median of three runs, with their spread
// (min–max). All load goes to loopback, bounded in count and time.
// `make bench` runs it after seeding the databases with wpseed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "catalogbench:", err)
		os.Exit(1)
	}
}

// runs is how many times each figure is measured; the report gives the
// median and the spread.
const runs = 3

type options struct {
	bin, server, demoDB string
	samples             int
	load                time.Duration
	accessLogs          []bool // the access log settings the throughput is measured with
	loader              string // "wrk" or "go"
	// varnishd, the VCL and the drop-in of the edge measurement; no
	// varnishd skips it.
	varnishd, vcl, varnishDropIn string
	// fitPool also measures the start-up with a buffer pool holding each
	// shop (pool.go).
	fitPool bool
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("catalogbench", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.bin, "catalogd", "bin/catalogd", "catalogd binary")
	fs.StringVar(&o.server, "dsn", "root@tcp(127.0.0.1:3306)/", "server DSN; the shops' databases are read through it")
	sizes := fs.String("sizes", "demo,10k,100k", `shops, comma-separated: "demo" is the demo shop (make demo-load), `+
		`any other name the database wp_bench_<name> seeded by wpseed`)
	fs.StringVar(&o.demoDB, "demo-db", "wp_demo", `database of the "demo" shop`)
	fs.IntVar(&o.samples, "samples", 200, "sequential requests per uncached measurement, per run")
	fs.DurationVar(&o.load, "load", 5*time.Second, "duration of each throughput run")
	accessLog := fs.String("access-log", "both", `catalogd's access log during the throughput runs: "on" (the default configuration), "off", or "both"`)
	loader := fs.String("loader", "auto", `load generator for throughput: "wrk", "go" (built in), or "auto" (wrk when on PATH)`)
	out := fs.String("out", "docs/benchmarks.md", "report file")
	changeSizes := fs.String("changes-sizes", "10k,100k", `shops the change feed is measured on (issue 12), comma-separated; "" skips it`)
	wpseed := fs.String("wpseed", "bin/wpseed", "wpseed binary, which seeds the shops into the private server with a binary log")
	fs.StringVar(&o.varnishd, "varnishd", "/usr/sbin/varnishd", `varnishd, for the edge figures (Varnish purged by catalogd); "" skips them`)
	fs.StringVar(&o.vcl, "vcl", "deploy/varnish/catalogd.vcl", "the VCL Varnish runs")
	fs.StringVar(&o.varnishDropIn, "varnish-dropin", "deploy/varnish/varnish.service.d/catalogd.conf", "the systemd drop-in whose varnishd parameters it gets")
	fs.BoolVar(&o.fitPool, "fit-buffer-pool", false, "also time the start-up with the server's InnoDB buffer pool resized to hold each shop (SET GLOBAL, given back after; needs the privilege)")
	fs.DurationVar(&readyTimeout, "ready-timeout", readyTimeout, "how long to wait for catalogd to be ready and answer its first requests (make bench-1m: minutes)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.varnishd != "" {
		if _, err := exec.LookPath(o.varnishd); err != nil {
			// A machine without Varnish still measures the rest, and says so.
			fmt.Fprintf(os.Stderr, "catalogbench: no varnishd (%v): the edge figures are left out (apt-get install varnish varnish-modules)\n", err)
			o.varnishd = ""
		}
	}
	switch *accessLog {
	case "on":
		o.accessLogs = []bool{true}
	case "off":
		o.accessLogs = []bool{false}
	case "both":
		o.accessLogs = []bool{true, false}
	default:
		return fmt.Errorf("-access-log: want on, off or both, got %q", *accessLog)
	}
	switch *loader {
	case "auto":
		o.loader = "go"
		if _, err := exec.LookPath("wrk"); err == nil {
			o.loader = "wrk"
		}
	case "wrk", "go":
		o.loader = *loader
	default:
		return fmt.Errorf("-loader: want wrk, go or auto, got %q", *loader)
	}
	var results []*shopResult
	for _, size := range strings.Split(*sizes, ",") {
		size = strings.TrimSpace(size)
		if size == "" {
			continue
		}
		db := "wp_bench_" + size
		if size == "demo" {
			db = o.demoDB
		}
		fmt.Fprintf(os.Stderr, "catalogbench: %s (%s)…\n", size, db)
		res, err := benchShop(o, size, o.server+db)
		if err != nil {
			return fmt.Errorf("%s (database %s; seeded? see make bench, make demo-load): %w", size, db, err)
		}
		results = append(results, res)
	}
	var sizesOfChanges []string
	for _, s := range strings.Split(*changeSizes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			sizesOfChanges = append(sizesOfChanges, s)
		}
	}
	var changes []*changesResult
	if len(sizesOfChanges) > 0 {
		var err error
		if changes, err = benchChanges(o, sizesOfChanges, *wpseed); err != nil {
			return fmt.Errorf("change feed: %w", err)
		}
	}
	var r bytes.Buffer
	writeReport(&r, o, results)
	writeChanges(&r, changes)
	if err := os.WriteFile(*out, r.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := stdout.Write(r.Bytes())
	return err
}
