// Package wordpress holds what catalogd ships for the WordPress side of a
// shop: catalogd-robots.php, a must-use plugin. Its tests run the plugin
// on Debian's WordPress (site_test.go), and, for the many shapes of a
// shop's pages, with Debian's PHP against a harness of the WordPress and
// WooCommerce functions it calls (testdata/harness.php); .ci/run installs
// both.
package wordpress

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"catalogd/internal/testdb"
)

// What do_robots() in WordPress 6.x builds for a public site, and what
// WP_Sitemaps adds on the robots_txt filter at priority 0.
const core = "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: https://shop.example/wp-sitemap.xml\n"

// The same with WooCommerce's own rules, as real shops serve it: inserted
// after the User-agent line.
const withWoo = "User-agent: *\nDisallow: /wp-content/uploads/wc-logs/\nDisallow: /wp-content/uploads/woocommerce_transient_files/\n" +
	"Disallow: /wp-content/uploads/woocommerce_uploads/\nDisallow: /*?add-to-cart=\nDisallow: /*?*add-to-cart=\n" +
	"Disallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: https://shop.example/wp-sitemap.xml\n"

type scenario struct {
	Output      string            `json:"output"`
	Public      any               `json:"public"` // as WordPress passes blog_public: "1"/"0" before 6.8, a bool after
	WooCommerce bool              `json:"woocommerce"`
	Pages       map[string]int    `json:"pages"`
	Status      map[string]string `json:"status"`
	Permalinks  map[string]string `json:"permalinks"`
}

// shop is a WooCommerce shop whose three pages are published at the
// permalinks given (cart 7, checkout 8, my-account 9).
func shop(output, cart, checkout, account string) scenario {
	return scenario{Output: output, Public: "1", WooCommerce: true,
		Pages:      map[string]int{"cart": 7, "checkout": 8, "myaccount": 9},
		Status:     map[string]string{"7": "publish", "8": "publish", "9": "publish"},
		Permalinks: map[string]string{"7": cart, "8": checkout, "9": account}}
}

func TestRobotsTxtPlugin(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		testdb.Lacking(t, "php is not installed (Debian's php-cli; .ci/run installs it): the robots.txt plugin is not run")
	}
	german := shop(withWoo, "https://shop.example/warenkorb/", "https://shop.example/kasse/", "https://shop.example/mein-konto/")
	unset := shop(core, "https://shop.example/cart/", "https://shop.example/checkout/", "https://shop.example/my-account/")
	unset.Pages = map[string]int{"cart": 7, "checkout": 0, "myaccount": 9} // no checkout page chosen
	unset.Status["9"] = "draft"
	frontCart := shop(core, "https://shop.example/", "https://shop.example/checkout/", "https://shop.example/my-account/")
	again := shop("User-agent: *\nDisallow: /cart/\n", "https://shop.example/cart/", "https://shop.example/checkout/",
		"https://shop.example/my-account/")
	private := shop(core, "https://shop.example/cart/", "https://shop.example/checkout/", "https://shop.example/my-account/")
	private.Public, private.Output = "0", "User-agent: *\n"
	privateBool := private
	privateBool.Public = false
	noWoo := shop(core, "https://shop.example/cart/", "", "")
	noWoo.WooCommerce = false
	rewritten := shop("Sitemap: https://shop.example/sitemap_index.xml\n", "https://shop.example/cart/",
		"https://shop.example/checkout/", "https://shop.example/my-account/")

	tests := []struct {
		name string
		in   scenario
		want string
	}{
		{"core rules, pages in a subdirectory install",
			shop(core, "https://example.org/shop/cart/", "https://example.org/shop/checkout/", "https://example.org/shop/my-account/"),
			"User-agent: *\nDisallow: /shop/cart/\nDisallow: /shop/checkout/\nDisallow: /shop/my-account/\n" +
				"Disallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n\nSitemap: https://shop.example/wp-sitemap.xml\n"},
		{"WooCommerce's own rules kept, the pages' translated slugs used", german,
			"User-agent: *\nDisallow: /warenkorb/\nDisallow: /kasse/\nDisallow: /mein-konto/\n" + strings.TrimPrefix(withWoo, "User-agent: *\n")},
		{"plain permalinks: the page's query",
			shop(core, "https://shop.example/?page_id=7", "https://shop.example/?page_id=8", "https://shop.example/?page_id=9"),
			"User-agent: *\nDisallow: /?page_id=7\nDisallow: /?page_id=8\nDisallow: /?page_id=9\n" + strings.TrimPrefix(core, "User-agent: *\n")},
		{"a page not chosen or not published is left out", unset,
			"User-agent: *\nDisallow: /cart/\n" + strings.TrimPrefix(core, "User-agent: *\n")},
		{"a cart that is the front page never disallows the site", frontCart,
			"User-agent: *\nDisallow: /checkout/\nDisallow: /my-account/\n" + strings.TrimPrefix(core, "User-agent: *\n")},
		{"a path already disallowed is not repeated", again,
			"User-agent: *\nDisallow: /checkout/\nDisallow: /my-account/\nDisallow: /cart/\n"},
		{"search engines discouraged ('0', WordPress before 6.8): untouched", private, "User-agent: *\n"},
		{"search engines discouraged (false, WordPress 6.8 and later): untouched", privateBool, "User-agent: *\n"},
		{"WooCommerce not loaded: untouched", noWoo, core},
		{"no group for every crawler: one of its own first", rewritten,
			"User-agent: *\nDisallow: /cart/\nDisallow: /checkout/\nDisallow: /my-account/\n\nSitemap: https://shop.example/sitemap_index.xml\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(php, "-d", "display_errors=stderr", "-d", "error_reporting=-1",
				"testdata/harness.php", "catalogd-robots.php")
			cmd.Stdin = strings.NewReader(string(in))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("php: %v\n%s", err, stderr.String())
			}
			if string(out) != tt.want {
				t.Errorf("robots.txt:\n%s\nwant:\n%s", out, tt.want)
			}
		})
	}
}
