// Command soak runs the soak (package catalogd/internal/soak) over the demo
// shop and prints its report in Markdown; it exits 1 when the soak fails.
//
//	go run ./internal/soak/cmd/soak -duration 3m
//
// It needs MariaDB/MySQL (-dsn, default $CATALOG_TEST_DSN or
// root@tcp(127.0.0.1:3306)/): the demo shop is loaded into a throwaway
// database, dropped at the end.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/demoshop"
	"catalogd/internal/soak"
)

func main() {
	o := soak.DefaultOptions()
	dsn := os.Getenv("CATALOG_TEST_DSN")
	if dsn == "" {
		dsn = "root@tcp(127.0.0.1:3306)/"
	}
	flag.StringVar(&o.Binary, "catalogd", "", "catalogd binary to run (default: build ./cmd/catalogd)")
	flag.StringVar(&dsn, "dsn", dsn, "MariaDB/MySQL server to load the demo shop into (a throwaway database)")
	flag.DurationVar(&o.Duration, "duration", o.Duration, "how long to load")
	flag.IntVar(&o.Rate, "rate", o.Rate, "requests per second")
	flag.IntVar(&o.Workers, "workers", o.Workers, "concurrent clients at most")
	flag.DurationVar(&o.FaultEvery, "fault-every", o.FaultEvery, "period of the database faults (0: none)")
	flag.DurationVar(&o.FaultFor, "fault-for", o.FaultFor, "how long the database is down in each period")
	flag.DurationVar(&o.FaultOffset, "fault-offset", o.FaultOffset, "when in each period the database goes down")
	flag.DurationVar(&o.Sample, "sample", o.Sample, "how often memory and goroutines are read")
	flag.DurationVar(&o.CacheTTL, "cache-ttl", o.CacheTTL, "catalogd's --cache-ttl")
	verbose := flag.Bool("v", false, "show catalogd's log")
	flag.Parse()
	if *verbose {
		o.Log = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, o, dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		code = 1
	}
	os.Exit(code)
}

// run loads the demo shop into a throwaway database, soaks, prints the
// report, and drops the database.
func run(ctx context.Context, o soak.Options, serverDSN string) (int, error) {
	cfg, err := mysql.ParseDSN(serverDSN)
	if err != nil {
		return 1, fmt.Errorf("-dsn: %w", err)
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return 1, err
	}
	defer admin.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "catalogd_soak_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"); err != nil {
		return 1, fmt.Errorf("create database: %w", err)
	}
	defer func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			fmt.Fprintln(os.Stderr, "soak: drop database:", err)
		}
	}()
	cfg.DBName = name
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return 1, err
	}
	defer db.Close()
	shop := demoshop.Shop()
	if err := shop.CreateSchema(ctx, db); err != nil {
		return 1, fmt.Errorf("schema: %w", err)
	}
	if err := shop.Flush(ctx, db); err != nil {
		return 1, fmt.Errorf("load the demo shop: %w", err)
	}
	o.DSN = cfg.FormatDSN()
	rep, err := soak.Run(ctx, o)
	if err != nil {
		return 1, err
	}
	fmt.Print(rep.Markdown())
	if len(rep.Violations) > 0 {
		return 1, nil
	}
	return 0, nil
}
