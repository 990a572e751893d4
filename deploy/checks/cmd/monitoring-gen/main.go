// Command monitoring-gen writes deploy/monitoring's generated files: the
// Grafana dashboard (catalogd-dashboard.json, from package monitoring's
// rows) and the PrometheusRule (catalogd-prometheusrule.yaml, from
// catalogd.rules.yml). make monitoring runs it. With -key-queries it
// prints the key panels' expressions instead, for
// deploy/monitoring/soak-picture.sh.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"catalogd/deploy/checks/monitoring"
)

func main() {
	dir := flag.String("dir", "../monitoring", "deploy/monitoring")
	keys := flag.Bool("key-queries", false, "print the key panels' expressions, one a line, as Prometheus gets them (the picture in docs/operations.md graphs them), and write nothing")
	flag.Parse()
	if *keys {
		for _, q := range monitoring.KeyQueries() {
			fmt.Println(strings.Join(strings.Fields(q.Expr), " "))
		}
		return
	}
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "monitoring-gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	files, err := monitoring.Generated(dir)
	if err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
