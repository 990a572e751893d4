package wpdb

import (
	"context"
	"testing"
	"time"

	"catalogd/catalog"
	"catalogd/wpdb/wpfixture"
)

// The signature moves with every change of a product or variation post
// WordPress makes, also while a product scheduled for the future (whose
// post_modified_gmt is its future date) is present, and stays put when
// nothing changed. The edits apply one after the other.
func TestSignatureSeesPostChanges(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	shop.Add(wpfixture.Product{Title: "Radar", RegularPrice: "20"})
	shop.Add(wpfixture.Product{Title: "Gun Shop", Type: "variable",
		Variations: []wpfixture.Variation{{Framework: "esx", RegularPrice: "10"}, {Framework: "qbox", RegularPrice: "15"}}})
	shop.Add(wpfixture.Product{Title: "Coming Soon", Status: "future", RegularPrice: "3", Date: testNow.Add(10 * 365 * 24 * time.Hour)})
	db, raw := openShop(t, shop)
	sig := func() catalog.Signature {
		t.Helper()
		s, err := db.Signature(context.Background(), catalog.ShopReads)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// relate is the term relationship wp_set_object_terms adds.
	relate := func(post, taxonomy, term string) string {
		return `INSERT INTO wp_term_relationships (object_id, term_taxonomy_id, term_order)
			SELECT p.ID, tt.term_taxonomy_id, 0 FROM wp_posts p, wp_term_taxonomy tt JOIN wp_terms t ON t.term_id = tt.term_id
			WHERE p.post_name = '` + post + `' AND tt.taxonomy = '` + taxonomy + `' AND t.slug = '` + term + `'`
	}
	tests := []struct {
		name    string
		edits   []string
		recount bool // WordPress recounts the post's terms (wp_update_term_count)
		changes bool
		// settings: the Settings part moves (a term's name, slug, parent or
		// order, or a setting changed), not only the products.
		settings bool
	}{
		{"nothing", nil, false, false, false},
		// wp_update_post moves post_modified_gmt to now, far before the
		// scheduled product's; wp_publish_post changes only the status,
		// and the publish transition recounts its terms.
		{"another product saved", []string{`UPDATE wp_posts SET post_modified_gmt = post_modified_gmt + INTERVAL 1 MINUTE WHERE post_name = 'radar'`}, false, true, false},
		{"the scheduled product goes live", []string{`UPDATE wp_posts SET post_status = 'publish' WHERE post_name = 'coming-soon'`}, true, true, false},
		{"a variation disabled", []string{`UPDATE wp_posts SET post_status = 'private', post_modified_gmt = post_modified_gmt + INTERVAL 1 MINUTE WHERE post_type = 'product_variation' ORDER BY ID LIMIT 1`}, false, true, false},
		// An order sells the last one: WooCommerce stores the stock
		// status, relates the product to the outofstock visibility term
		// (recounting it) and bumps the transient version.
		{"a product out of stock", []string{
			`UPDATE wp_postmeta m JOIN wp_posts p ON p.ID = m.post_id SET m.meta_value = 'outofstock' WHERE p.post_name = 'gun-shop' AND m.meta_key = '_stock_status'`,
			relate("gun-shop", "product_visibility", "outofstock"),
			`INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('_transient_product-transient-version', '1700000000', 'yes')
			ON DUPLICATE KEY UPDATE option_value = option_value + 1`}, true, true, false},
		{"a product trashed", []string{`UPDATE wp_posts SET post_status = 'trash', post_name = 'radar__trashed', post_modified_gmt = post_modified_gmt + INTERVAL 1 MINUTE WHERE post_name = 'radar'`}, true, true, false},
		{"a product added", []string{`INSERT INTO wp_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status,
			post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type)
			VALUES (1, NOW(), UTC_TIMESTAMP(), '', 'New', '', 'publish', 'new', '', '', NOW(), UTC_TIMESTAMP(), '', 'product')`,
			relate("new", "product_type", "simple"), relate("new", "product_cat", "uncategorized")}, true, true, false},
		// Every product save and order's stock change bumps it: a product's
		// change, not the settings'.
		{"the product transient version bumped", []string{`INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('_transient_product-transient-version', '1700000000', 'yes')
			ON DUPLICATE KEY UPDATE option_value = option_value + 1`}, false, true, false},
		{"a category renamed", []string{`UPDATE wp_terms SET name = 'Misc' WHERE slug = 'uncategorized' AND term_id IN
			(SELECT term_id FROM wp_term_taxonomy WHERE taxonomy = 'product_cat')`}, false, true, true},
		{"a setting changed", []string{`INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('woocommerce_price_num_decimals', '3', 'yes')
			ON DUPLICATE KEY UPDATE option_value = '3'`}, false, true, true},
		{"nothing again", nil, false, false, false},
	}
	last := sig()
	for _, tt := range tests {
		for _, q := range tt.edits {
			if _, err := raw.Exec(q); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		if tt.recount {
			if err := shop.UpdateCounts(context.Background(), raw); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		now := sig()
		if (now != last) != tt.changes {
			t.Errorf("%s: signature %q → %q; want a change: %v", tt.name, last, now, tt.changes)
		}
		if moved := now.Settings != last.Settings; moved != tt.settings {
			t.Errorf("%s: settings part %q → %q; want a change: %v", tt.name, last.Settings, now.Settings, tt.settings)
		}
		last = now
	}
}

// The signature moves when a setting that decides the index's sitemap
// changes: search engine visibility, Yoast's or Rank Math's sitemap
// switched, an SEO plugin activated.
func TestSignatureSeesSitemapSettings(t *testing.T) {
	t.Parallel()
	shop := newTestShop("wp_")
	shop.EnableYoast(true)
	shop.SetOption("rank_math_modules", `a:1:{i:0;s:7:"sitemap";}`) // left by a deactivated Rank Math
	db, raw := openShop(t, shop)
	tests := []struct{ name, edit string }{
		{"search engines discouraged", `UPDATE wp_options SET option_value = '0' WHERE option_name = 'blog_public'`},
		{"Yoast's sitemap switched off", `UPDATE wp_options SET option_value = REPLACE(option_value, 's:18:"enable_xml_sitemap";b:1;', 's:18:"enable_xml_sitemap";b:0;') WHERE option_name = 'wpseo'`},
		{"Rank Math's sitemap module switched off", `UPDATE wp_options SET option_value = 'a:0:{}' WHERE option_name = 'rank_math_modules'`},
	}
	last, err := db.Signature(context.Background(), catalog.ShopReads)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		res, err := raw.Exec(tt.edit)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%s: %d rows changed, want 1", tt.name, n)
		}
		now, err := db.Signature(context.Background(), catalog.ShopReads)
		if err != nil {
			t.Fatal(err)
		}
		if now == last {
			t.Errorf("%s: the signature did not change", tt.name)
		}
		last = now
	}
}
