package wordpress

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"catalogd/internal/wptest"
)

// TestRobotsTxtOnWordPress runs the plugin as a must-use plugin of Debian's
// WordPress (internal/wptest: a site of its own on a throwaway database),
// and asks WordPress for robots.txt over HTTP: PHP's built-in server, the
// request through index.php to WordPress's do_robots(). WooCommerce is
// not packaged by Debian: its one function the plugin calls has a
// stand-in (testdata/woocommerce-stand-in.php); everything else is
// WordPress's own.
func TestRobotsTxtOnWordPress(t *testing.T) {
	site := wptest.Install(t)
	install := func(t *testing.T, file string) {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(site.MUPlugins(), filepath.Base(file)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(t *testing.T, file string) {
		t.Helper()
		if err := os.Remove(filepath.Join(site.MUPlugins(), filepath.Base(file))); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	install(t, "testdata/woocommerce-stand-in.php")
	// WooCommerce's cart, checkout and my-account pages, with a German
	// shop's slugs.
	site.PHP(t, `
foreach ( array( 'cart' => 'warenkorb', 'checkout' => 'kasse', 'myaccount' => 'mein-konto' ) as $page => $slug ) {
	$id = wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => $slug ), true );
	if ( is_wp_error( $id ) ) {
		fwrite( STDERR, $id->get_error_message() );
		exit( 1 );
	}
	update_option( 'woocommerce_' . $page . '_page_id', $id );
}`)
	visitor := site.Visitor(site.Serve(t))
	robots := func(t *testing.T) string {
		t.Helper()
		a := visitor.Get(t, "/robots.txt", nil)
		if a.Status != http.StatusOK || !strings.HasPrefix(a.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("GET /robots.txt: %d %s:\n%s", a.Status, a.Header.Get("Content-Type"), a.Body)
		}
		return a.Body
	}
	const ours = "Disallow: /warenkorb/\nDisallow: /kasse/\nDisallow: /mein-konto/\n"

	for _, tt := range []struct {
		name   string
		public string // blog_public as Settings > Reading stores it
		asBool bool   // passed to robots_txt as WordPress 6.8 and later pass it
		add    bool   // the pages are disallowed
	}{
		{"public, as WordPress 6.1 passes it ('1')", "1", false, true},
		{"public, as WordPress 6.8 and later pass it (true)", "1", true, true},
		{"search engines discouraged, as WordPress 6.1 passes it ('0'): untouched", "0", false, false},
		{"search engines discouraged, as WordPress 6.8 and later pass it (false): untouched", "0", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			site.PHP(t, "update_option( 'blog_public', '"+tt.public+"' );")
			remove(t, "blog-public-as-bool.php")
			if tt.asBool {
				install(t, "testdata/blog-public-as-bool.php")
			}
			// What WordPress serves without the plugin.
			remove(t, "catalogd-robots.php")
			core := robots(t)
			if !strings.HasPrefix(core, "User-agent: *\nDisallow: /wp-admin/\n") {
				t.Fatalf("not WordPress's robots.txt:\n%s", core)
			}
			install(t, "catalogd-robots.php")
			want := core
			if tt.add {
				want = "User-agent: *\n" + ours + strings.TrimPrefix(core, "User-agent: *\n")
			}
			if got := robots(t); got != want {
				t.Errorf("robots.txt:\n%s\nwant:\n%s", got, want)
			}
		})
	}
	for _, line := range strings.Split(site.DebugLog(), "\n") {
		if strings.Contains(line, "catalogd-robots.php") || strings.Contains(line, "woocommerce-stand-in.php") {
			t.Errorf("PHP logged: %s", line)
		}
	}
}
