// Command embedded serves the demo shop from an in-memory MySQL-compatible
// server (dolthub/go-mysql-server), loaded from deploy/seed/demo.sql, for
// `make demo` on a machine where no MySQL or MariaDB answers. It is its own
// Go module, so that nothing of it enters catalogd's dependency graph; the
// real database stays the default whenever one answers.
//
//	go run . -addr 127.0.0.1:3307 -seed ../seed/demo.sql
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	_ "github.com/go-sql-driver/mysql"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3307", "address to serve MySQL on (loopback)")
	name := flag.String("db", "wp_demo", "database name")
	seed := flag.String("seed", "../seed/demo.sql", "SQL script to load")
	logTo := flag.String("log-statements", "", "file to append every statement received to, a JSON line each (for tests)")
	flag.Parse()
	if err := run(*addr, *name, *seed, *logTo); err != nil {
		fmt.Fprintln(os.Stderr, "embedded:", err)
		os.Exit(1)
	}
}

func run(addr, name, seed, logTo string) error {
	var log *statementLog
	if logTo != "" {
		f, err := os.OpenFile(logTo, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		log = newStatementLog(f)
	}
	srv, err := newServer(addr, name, log)
	if err != nil {
		return fmt.Errorf("%w (-addr; make demo sets it from EMBEDDED_ADDR: choose a free address)", err)
	}
	go func() { _ = srv.Start() }()
	defer srv.Close()

	if err := load(addr, name, seed); err != nil {
		return err
	}
	if log != nil {
		log.start()
	}
	fmt.Printf("embedded MySQL serving %s on %s (in memory)\n", name, addr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

// load runs the seed script statement by statement, as the mysql client
// does. The script's statements end with ";\n" and hold no raw newlines in
// their strings (wpfixture escapes them).
func load(addr, name, seed string) error {
	script, err := os.ReadFile(seed)
	if err != nil {
		return err
	}
	db, err := sql.Open("mysql", "root@tcp("+addr+")/"+name)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, stmt := range strings.Split(string(script), ";\n") {
		var lines []string
		for _, l := range strings.Split(stmt, "\n") {
			if !strings.HasPrefix(l, "--") {
				lines = append(lines, l)
			}
		}
		s := strings.TrimSpace(strings.Join(lines, "\n"))
		if s == "" {
			continue
		}
		for _, one := range splitRows(s) {
			if _, err := db.Exec(one); err != nil {
				return fmt.Errorf("seed: %w\n%.300s", err, one)
			}
		}
	}
	return nil
}

// splitRows turns a multi-row INSERT into one INSERT per row: go-mysql-server
// v0.20.0 reports a false duplicate primary key on some multi-row inserts
// into tables with a composite key (term_relationships), and accepts the
// same rows one at a time. Rows are separated by ",\n(" in the script.
func splitRows(stmt string) []string {
	head, values, ok := strings.Cut(stmt, " VALUES ")
	if !ok || !strings.HasPrefix(stmt, "INSERT INTO") {
		return []string{stmt}
	}
	rows := strings.Split(values, ",\n(")
	out := make([]string, len(rows))
	for i, r := range rows {
		if i > 0 {
			r = "(" + r
		}
		out[i] = head + " VALUES " + r
	}
	return out
}
