// Command wpseed writes a deterministic WordPress + WooCommerce shop of N
// products into a MariaDB/MySQL database, for benchmarks: nested
// categories, every framework, simple and variable products, the visibility
// mix, sales, attachments, and the noise real shops carry (revisions,
// orders, ~30 meta rows per product), with the stock indexes only.
//
//	wpseed -dsn 'root@tcp(127.0.0.1:3306)/' -db wp_bench_100k -products 100000
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/wpfixture"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wpseed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("wpseed", flag.ContinueOnError)
	dsn := fs.String("dsn", "root@tcp(127.0.0.1:3306)/", "server DSN (no database)")
	name := fs.String("db", "wp_bench", "database to write")
	n := fs.Int("products", 10000, "number of products")
	force := fs.Bool("force", false, "rebuild even when the database holds a shop of that size")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := mysql.ParseDSN(*dsn)
	if err != nil {
		return err
	}
	cfg.InterpolateParams = true
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer admin.Close()
	if !*force {
		var have int
		err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+*name+"`.wp_posts WHERE post_type = 'product'").Scan(&have)
		if err == nil && have == *n {
			fmt.Fprintf(stdout, "wpseed: %s already holds %d products\n", *name, have)
			return nil
		}
	}
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+*name+"`"); err != nil {
		return err
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+*name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci"); err != nil {
		return err
	}
	cfg.DBName = *name
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	if err := seed(ctx, db, *n); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wpseed: %d products into %s in %s\n", *n, *name, time.Since(start).Round(time.Millisecond))
	return nil
}

var frameworks = []string{"esx", "qbcore", "qbox", "standalone"}

// seed builds the shop in batches, flushing each in its own transaction.
func seed(ctx context.Context, db *sql.DB, n int) error {
	s := wpfixture.New("wp_", "https://bench.example")
	s.Now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(42, 7))
	if err := s.CreateSchema(ctx, db); err != nil {
		return err
	}
	// Nested categories: 8 top, 5 children each, 2 grandchildren each.
	var leaves []string
	for i := 0; i < 8; i++ {
		top := fmt.Sprintf("cat-%d", i)
		s.Category(fmt.Sprintf("Category %d", i), top, "", rng.IntN(5))
		for j := 0; j < 5; j++ {
			mid := fmt.Sprintf("%s-%d", top, j)
			s.Category(fmt.Sprintf("Category %d.%d", i, j), mid, top, rng.IntN(5))
			leaves = append(leaves, mid)
			for k := 0; k < 2; k++ {
				leaf := fmt.Sprintf("%s-%d", mid, k)
				s.Category(fmt.Sprintf("Category %d.%d.%d", i, j, k), leaf, mid, 0)
				leaves = append(leaves, leaf)
			}
		}
	}
	price := func() string { return fmt.Sprintf("%d.%02d", 1+rng.IntN(80), rng.IntN(100)) }
	const batch = 2000
	for i := 0; i < n; i++ {
		p := wpfixture.Product{
			Title:        fmt.Sprintf("Script %06d", i),
			Slug:         fmt.Sprintf("script-%06d", i),
			RegularPrice: price(),
			Excerpt:      "<p>A FiveM script with <strong>config</strong> &amp; docs.</p>",
			Content:      "<!-- wp:paragraph --><p>Description of the script, with features and install steps.</p><!-- /wp:paragraph -->",
			Categories:   []string{leaves[rng.IntN(len(leaves))]},
			Image:        fmt.Sprintf("2026/10/script-%06d.jpg", i),
			Date:         s.Now.Add(-time.Duration(n-i) * time.Minute),
		}
		if c := leaves[rng.IntN(len(leaves))]; rng.IntN(4) == 0 && c != p.Categories[0] {
			p.Categories = append(p.Categories, c)
		}
		for _, f := range frameworks {
			if rng.IntN(2) == 0 {
				p.Frameworks = append(p.Frameworks, f)
			}
		}
		switch r := rng.IntN(100); {
		case r < 3:
			p.Visibility = "hidden"
		case r < 5:
			p.Visibility = "search"
		case r < 7:
			p.Visibility = "catalog"
		case r < 9:
			p.Status = "draft"
		}
		if rng.IntN(20) == 0 {
			p.StockStatus = "outofstock"
		}
		if rng.IntN(7) == 0 {
			p.SalePrice = "0.99"
			p.SaleFrom = s.Now.Add(-24 * time.Hour)
			p.SaleTo = s.Now.Add(time.Duration(rng.IntN(60*24)) * time.Hour)
		}
		if rng.IntN(5) == 0 {
			p.Type, p.RegularPrice, p.SalePrice = "variable", "", ""
			for _, f := range frameworks[:2+rng.IntN(3)] {
				p.Variations = append(p.Variations, wpfixture.Variation{Framework: f, RegularPrice: price()})
			}
		}
		s.AddNoise(s.Add(p), p.Title)
		if (i+1)%batch == 0 || i == n-1 {
			if err := s.FlushRows(ctx, db); err != nil {
				return err
			}
			s.Compact()
		}
	}
	return s.UpdateCounts(ctx, db)
}
