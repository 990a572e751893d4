package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The database server's buffer pool, which a whole load reads through.
//
// A whole load scans the shop's post meta and posts. Where InnoDB's buffer
// pool holds them, the scan is the server's CPU; where it does not (MariaDB's
// default pool is 128 MB, far less than a large shop's tables), every load
// reads most pages again from the operating system's cache, and the
// server's share of a load grows. A large shop runs a pool sized for
// it, so the start-up is measured both ways: at the pool as found, and with
// one holding the shop (-fit-buffer-pool), set for those starts only and
// given back after.

// poolStep is what a fitted pool is rounded up to: MariaDB's pool grows in
// chunks, 128 MB by default.
const poolStep = 128 << 20

// server is a connection to the database server the shops are on.
type server struct{ db *sql.DB }

func openServer(dsn string) (*server, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &server{db: db}, nil
}

func (s *server) Close() error { return s.db.Close() }

// bufferPool is innodb_buffer_pool_size in bytes.
func (s *server) bufferPool() (int64, error) {
	var n int64
	err := s.db.QueryRow(`SELECT @@innodb_buffer_pool_size`).Scan(&n)
	return n, err
}

// shopBytes is the size of the shop's tables, data and indexes.
func (s *server) shopBytes(db string) (int64, error) {
	var n sql.NullInt64
	err := s.db.QueryRow(`SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = ?`, db).Scan(&n)
	return n.Int64, err
}

// fitFor is the pool that holds the shop with a quarter to spare (InnoDB's
// own structures, the pages' fill), rounded up to poolStep.
func fitFor(shop int64) int64 {
	want := shop + shop/4
	return (want + poolStep - 1) / poolStep * poolStep
}

// setBufferPool resizes the pool and waits until the server has: MariaDB
// resizes online, in the background.
func (s *server) setBufferPool(n int64) error {
	if _, err := s.db.Exec(fmt.Sprintf(`SET GLOBAL innodb_buffer_pool_size = %d`, n)); err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var name, status string
		err := s.db.QueryRow(`SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_resize_status'`).Scan(&name, &status)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		got, err := s.bufferPool()
		if err != nil {
			return err
		}
		if got >= n && !strings.Contains(strings.ToLower(status), "resizing") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the buffer pool is %d MB, not yet %d MB, after 2 minutes (%s)", got>>20, n>>20, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// poolStarts notes the pool as found and the shop's size and, with
// -fit-buffer-pool where the pool as found does not hold the shop, measures
// catalogd's start-up with one that does: the pool is resized, one start
// warms it (the shop read through the operating system's cache), runs
// starts are timed, and the pool is given back.
func poolStarts(o options, dsn, db string, res *shopResult) error {
	s, err := openServer(o.server)
	if err != nil {
		return err
	}
	defer s.Close()
	found, err := s.bufferPool()
	if err != nil {
		return err
	}
	shop, err := s.shopBytes(db)
	if err != nil {
		return err
	}
	res.poolFound, res.shopMB = found>>20, shop>>20
	fit := fitFor(shop)
	if !o.fitPool || fit <= found {
		return nil
	}
	if err := s.setBufferPool(fit); err != nil {
		return fmt.Errorf("resize the buffer pool to %d MB (-fit-buffer-pool; it needs SUPER or BINLOG ADMIN): %w", fit>>20, err)
	}
	defer func() {
		if err := s.setBufferPool(found); err != nil {
			fmt.Fprintf(os.Stderr, "catalogbench: the buffer pool could not be given back its %d MB: %v\n", found>>20, err)
		}
	}()
	res.poolFit = fit >> 20
	for i := range runs + 1 {
		load := loadAverage()
		p, tl, err := start(o.bin, dsn, os.Stderr, "CATALOG_CACHE_TTL=0", "CATALOG_POLL_INTERVAL=1h")
		if err != nil {
			return err
		}
		peak, _ := p.PeakRSSMiB()
		p.Kill()
		if i == 0 {
			continue // the warm-up: it read the shop into the pool
		}
		res.fitStarts = append(res.fitStarts, tl)
		res.fitLoads = append(res.fitLoads, load)
		res.fitPeakRSS = append(res.fitPeakRSS, peak)
	}
	return nil
}
