package soak

import (
	"fmt"
	"strings"
	"time"
)

// Sample is one reading of catalogd's state.
type Sample struct {
	At         time.Duration
	Fault      bool
	Requests   int64 // answered since the previous sample
	RSSMiB     float64
	Goroutines float64
	DBOpen     float64
}

// Report is what a soak found.
type Report struct {
	Options               Options
	Elapsed               time.Duration
	Sent, Dropped         int64
	Inside, Outside, All  Tally
	Samples               []Sample
	Windows               [][2]time.Duration
	IdleGoroutinesBefore  float64
	IdleGoroutinesAfter   float64
	RSSBaseline, RSSAfter float64
	Examples              []string // first few violating answers
	Violations            []string
	URLs, ColdShare       int

	start time.Time // of the load
}

// end is the time since the load began, to the second.
func (rep *Report) end() time.Duration { return time.Since(rep.start).Round(time.Second) }

// Markdown renders the report.
func (rep *Report) Markdown() string {
	o := rep.Options
	var b strings.Builder
	fmt.Fprintf(&b, "## catalogd soak: %v at %d req/s, database down %v every %v\n\n", o.Duration, o.Rate, o.FaultFor, o.FaultEvery)
	rate := float64(rep.Sent-rep.Dropped) / rep.Elapsed.Seconds()
	fmt.Fprintf(&b, "%d requests sent (%.1f/s achieved, %d dropped for want of a free client) over %d URLs plus %d%% never-seen slugs; %d fault windows (+%v grace).\n\n",
		rep.Sent, rate, rep.Dropped, rep.URLs, rep.ColdShare, len(rep.Windows), o.Grace)
	b.WriteString("| answers | total | 2xx | 304 | 4xx | 503 no copy | 503 with copy | 500 | other 5xx | transport errors | HIT | MISS | STALE |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range []struct {
		name string
		t    Tally
	}{{"outside fault windows", rep.Outside}, {"inside fault windows", rep.Inside}, {"all", rep.All}} {
		t := row.t
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", row.name, t.Total, t.OK,
			t.NotModified, t.Client4xx, t.Cold503, t.Warm503, t.S500, t.Other5xx, t.Transport, t.Hit, t.Miss, t.Stale)
	}
	b.WriteString("\n| t | database | answers | RSS (MiB) | goroutines | DB connections open |\n|---:|---|---:|---:|---:|---:|\n")
	for i, s := range rep.Samples {
		state := "up"
		if s.Fault {
			state = "**down**"
		}
		if i == len(rep.Samples)-1 {
			state = "up, idle after the load"
		}
		fmt.Fprintf(&b, "| %v | %s | %d | %.1f | %.0f | %.0f |\n", s.At, state, s.Requests, s.RSSMiB, s.Goroutines, s.DBOpen)
	}
	fmt.Fprintf(&b, "\nIdle goroutines: %.0f before the load, %.0f after (slack %.0f). RSS: %.1f MiB after the first fault cycle, %.1f MiB at the end (allowed %.0f%% + %.0f MiB).\n",
		rep.IdleGoroutinesBefore, rep.IdleGoroutinesAfter, o.GoroutineSlack, rep.RSSBaseline, rep.RSSAfter, o.RSSGrowth*100, o.RSSSlackMiB)
	if len(rep.Violations) == 0 {
		b.WriteString("\n**PASS**: no 500, no 5xx outside the fault windows but 503s for keys never answered, memory and goroutines flat.\n")
	} else {
		b.WriteString("\n**FAIL**:\n")
		for _, v := range rep.Violations {
			b.WriteString("- " + v + "\n")
		}
	}
	if len(rep.Examples) > 0 {
		b.WriteString("\nFirst offending answers:\n")
		for _, e := range rep.Examples {
			b.WriteString("- `" + strings.ReplaceAll(e, "`", "'") + "`\n")
		}
	}
	return b.String()
}
