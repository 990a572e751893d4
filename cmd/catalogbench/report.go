package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// The Markdown report.

func writeReport(r *bytes.Buffer, o options, results []*shopResult) {
	fmt.Fprintf(r, "# Benchmarks\n\nTaken %s on %s (commit %s), %d cores, %s, %s, by `make bench` (cmd/catalogbench).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpuModel(), gitCommit(), runtime.NumCPU(), runtime.Version(), dbVersion())
	loader := "wrk, one thread"
	if o.loader == "go" {
		loader = "catalogbench's own Go client (wrk not on PATH)"
	}
	fmt.Fprintf(r, "Every figure is the median of %d runs, the spread (min–max) in brackets. "+
		"Uncached: cache off (`CATALOG_CACHE_TTL=0`), %d sequential requests per row and run after a warm-up, one catalogd start per run, "+
		"the change poller slowed to 1 h so the statements counted are the requests' own. "+
		"Cached: the first list page of 50, %s per run, 16 connections, loopback, %s, "+
		"beside a minimal `net/http` server writing the same body and headers (Content-Type included); with the access log on, the default configuration, its lines go to /dev/null.\n",
		runs, o.samples, o.load, loader)

	// The summary table, one column per shop.
	fmt.Fprintf(r, "\n## Summary\n\n")
	line := summaryTable(r, results, func(s *shopResult) string { return fmt.Sprintf("%s (%d products)", s.size, s.total) })
	line("list of 50, median ms", "≤ 1 ms", func(s *shopResult) string { return s.list.p50.format(2) })
	line("single product, median ms", "≤ 0.5 ms", func(s *shopResult) string { return s.single.p50.format(2) })
	line("list of 50, p99 ms", "≤ 3 ms at 100k", func(s *shopResult) string { return s.list.p99.format(2) })
	line("single product, p99 ms", "≤ 1 ms at 100k", func(s *shopResult) string { return s.single.p99.format(2) })
	line("slowest operation's p99 ms (every row below: list, product, categories, index)", "≤ 3 ms at 100k", func(s *shopResult) string {
		worst, name := figures(nil), ""
		for _, rw := range s.rows {
			if worst == nil || rw.p99.median() > worst.median() {
				worst, name = rw.p99, rw.name
			}
		}
		return worst.format(2) + " (" + name + ")"
	})
	for i, on := range o.accessLogs {
		line("cached list of 50 vs static server, access log "+onOff(on), "≥ 0.8×", func(s *shopResult) string {
			return s.tput[i].ratio.format(2) + "×"
		})
	}
	line("statements per request, steady state", "0", func(s *shopResult) string { return s.stmtsPerReq.format(2) })
	line("RSS, every list page cached, MB", "≤ 60 MB demo, ≤ 400 MB at 100k", func(s *shopResult) string {
		return fmt.Sprintf("%.0f", s.rssFull)
	})
	line("start → listening, ms", "", func(s *shopResult) string { return s.timeline(func(t timeline) float64 { return t.listening }) })
	line("start → ready (/readyz 200), ms", "≤ 1 s demo, ≤ 3 s at 100k", func(s *shopResult) string {
		return s.timeline(func(t timeline) float64 { return t.ready })
	})
	line("InnoDB buffer pool as found / the shop's tables, MB", "", func(s *shopResult) string {
		return fmt.Sprintf("%d / %d", s.poolFound, s.shopMB)
	})
	if fitted(results) {
		line("start → ready, a buffer pool holding the shop, ms", "≤ 3 s at 100k", func(s *shopResult) string {
			if s.poolFit == 0 {
				return "as above"
			}
			return fmt.Sprintf("%s (pool %d MB)", timelines(s.fitStarts, func(t timeline) float64 { return t.ready }), s.poolFit)
		})
	}
	line("start → first list page, ms", "", func(s *shopResult) string { return s.timeline(func(t timeline) float64 { return t.firstList }) })
	line("start → first product page, ms", "", func(s *shopResult) string {
		return s.timeline(func(t timeline) float64 { return t.firstProduct })
	})
	line("snapshot build (catalogd_snapshot_build_seconds), s", "≤ 10 s at 100k", func(s *shopResult) string {
		if len(s.snapshotBuild) == 0 {
			return "not reported"
		}
		return s.snapshotBuild.format(3)
	})
	line("peak RSS during the load (VmHWM at ready), MB", "", func(s *shopResult) string { return s.peakRSS.format(0) })
	line("RSS at ready, MB", "", func(s *shopResult) string { return s.readyRSS.format(0) })
	line("snapshot products (catalogd_snapshot_products)", "", func(s *shopResult) string {
		if len(s.snapshotProds) == 0 {
			return "not reported"
		}
		return s.snapshotProds.format(0)
	})

	for _, s := range results {
		fmt.Fprintf(r, "\n## %s: database %s, %d catalog-visible products\n\n", s.size, s.db, s.total)
		fmt.Fprintf(r, "| operation | p50 ms | p95 ms | p99 ms | statements/req | allocs/req |\n|---|---|---|---|---|---|\n")
		for _, rw := range s.rows {
			fmt.Fprintf(r, "| %s | %s | %s | %s | %s | %s |\n", rw.name, rw.p50.format(2), rw.p95.format(2), rw.p99.format(2),
				rw.stmts.format(1), rw.allocs.format(0))
		}
		fmt.Fprintf(r, "\nStart-up, ms from process start (one line per run): listening → ready → first list page → first product page; "+
			"the load average (1, 5, 15 min) when the run began.\n\n")
		writeStarts(r, s.starts, s.loads)
		if s.poolFit > 0 {
			fmt.Fprintf(r, "\nThe same, with the server's buffer pool resized from %d MB to %d MB (the shop's tables are %d MB), after one start that read the shop into it; peak RSS %s MB:\n\n",
				s.poolFound, s.poolFit, s.shopMB, s.fitPeakRSS.format(0))
			writeStarts(r, s.fitStarts, s.fitLoads)
		}
		for _, t := range s.tput {
			fmt.Fprintf(r, "\nCached throughput, access log %s (list page, per_page=50, %d bytes): catalogd **%s req/s**, "+
				"the static server %s req/s: **%s×**. Per run (catalogd / static):", onOff(t.accessLog), s.bodyBytes,
				t.cached.format(0), t.plain.format(0), t.ratio.format(2))
			for i := range t.cached {
				fmt.Fprintf(r, " %.0f / %.0f;", t.cached[i], t.plain[i])
			}
			fmt.Fprintln(r)
		}
		fmt.Fprintf(r, "\nRSS under load: %.0f MB; with every list page cached (%.0f entries, %.1f MB in the cache): **%.0f MB**. "+
			"Top of the heap profile then (in-use space, after a GC):\n\n```\n%s\n```\n",
			s.rssLoad, s.entries, s.cacheBytes/(1<<20), s.rssFull, s.heapTop)
	}
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// summaryTable writes the head of a table with a column per shop and a
// target column, and returns the function that writes one row.
func summaryTable[T any](r io.Writer, shops []T, head func(T) string) func(name, target string, cell func(T) string) {
	fmt.Fprintf(r, "| | ")
	for _, s := range shops {
		fmt.Fprintf(r, "%s | ", head(s))
	}
	fmt.Fprintf(r, "target |\n|---|")
	for range shops {
		fmt.Fprintf(r, "---|")
	}
	fmt.Fprintf(r, "---|\n")
	return func(name, target string, cell func(T) string) {
		fmt.Fprintf(r, "| %s | ", name)
		for _, s := range shops {
			fmt.Fprintf(r, "%s | ", cell(s))
		}
		fmt.Fprintf(r, "%s |\n", target)
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func (s *shopResult) timeline(f func(timeline) float64) string { return timelines(s.starts, f) }

// timelines is one moment of the starts: its median and spread.
func timelines(starts []timeline, f func(timeline) float64) string {
	var v figures
	for _, t := range starts {
		v = append(v, f(t))
	}
	return v.format(1)
}

// writeStarts writes a line per start, with the load average when it began.
func writeStarts(r io.Writer, starts []timeline, loads []string) {
	for i, t := range starts {
		load := "unknown"
		if i < len(loads) {
			load = loads[i]
		}
		fmt.Fprintf(r, "- %.1f → %.1f → %.1f → %.1f (load average %s)\n", t.listening, t.ready, t.firstList, t.firstProduct, load)
	}
}

// fitted is whether some shop was measured with a fitted buffer pool.
func fitted(results []*shopResult) bool {
	for _, s := range results {
		if s.poolFit > 0 {
			return true
		}
	}
	return false
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			return strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
		}
	}
	return runtime.GOARCH
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func dbVersion() string {
	out, err := exec.Command("mysql", "--protocol=tcp", "-h127.0.0.1", "-uroot", "-N", "-e", "SELECT VERSION()").Output()
	if err != nil {
		return "MariaDB"
	}
	return "MariaDB " + strings.TrimSpace(string(out))
}
