// Package wptest installs Debian's WordPress (the wordpress package, in
// /usr/share/wordpress) as a site of its own for a test: a throwaway
// database (internal/testdb), a temporary directory for the site's
// settings and wp-content (with mu-plugins/ for the test's must-use
// plugins), and WordPress's own installer run from PHP. The site is served
// by php-fpm (StartFPM) behind the test's web server, or by PHP's built-in
// server (Serve). Without PHP, the package or the rights it needs, a test
// stops through testdb.Lacking: it fails under CI=true, where .ci/run
// installs them.
//
// Debian's wp-config.php reads a site's settings from
// /etc/wordpress/config-<host>.php, by the request's host name, and from
// nowhere else. Install writes the settings into the test's directory and
// links them there under a host name of the site's own
// (catalogd-wptest-<random>), removed when the test ends: the installed
// package stays as Debian ships it, and sites of tests that run at once
// never meet. The site's address is http://<host>/ (port 80, as a shop's
// is); a Visitor sends its requests to the test's server instead.
package wptest

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"catalogd/internal/testdb"
)

// Root is where Debian's wordpress package installs WordPress.
const Root = "/usr/share/wordpress"

// ConfigDir is where Debian's wp-config.php looks for a site's settings.
const ConfigDir = "/etc/wordpress"

//go:embed bootstrap.php
var bootstrap []byte

//go:embed install.php
var installer []byte

// Site is one installed WordPress site.
type Site struct {
	// Host is the site's host name, URL its address (WordPress's home and
	// siteurl): http://Host.
	Host, URL string
	// Dir holds the site's settings (config.php), its WP_CONTENT_DIR
	// (wp-content/: mu-plugins/, themes/, uploads/) and WordPress's debug
	// log (debug.log).
	Dir string

	php string
}

// Install installs WordPress as a new site, removed when the test ends.
func Install(t testing.TB) *Site {
	t.Helper()
	php := needPHP(t)
	if _, err := os.Stat(filepath.Join(Root, "wp-load.php")); err != nil {
		testdb.Lacking(t, "Debian's WordPress is not installed (.ci/run installs the wordpress package): %v", err)
	}
	theme := filepath.Join(Root, "wp-content/themes/twentytwentythree")
	if _, err := os.Stat(theme); err != nil {
		testdb.Lacking(t, "WordPress 6.1's default theme is not installed (.ci/run installs wordpress-theme-twentytwentythree): %v", err)
	}
	if out, err := exec.Command(php, "-r", `exit(extension_loaded("mysqli") ? 0 : 1);`).CombinedOutput(); err != nil {
		testdb.Lacking(t, "PHP has no mysqli extension (.ci/run installs php-mysql): %v %s", err, out)
	}
	cfg, err := mysql.ParseDSN(testdb.New(t))
	if err != nil {
		t.Fatal(err)
	}
	dbHost := cfg.Addr
	if cfg.Net == "unix" {
		dbHost = "localhost:" + cfg.Addr
	}

	s := &Site{Host: "catalogd-wptest-" + randomHex(6), Dir: t.TempDir(), php: php}
	s.URL = "http://" + s.Host
	content := filepath.Join(s.Dir, "wp-content")
	for _, d := range []string{"mu-plugins", "themes", "uploads"} {
		if err := os.MkdirAll(filepath.Join(content, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The packaged theme, linked as Debian links it into its own
	// /var/lib/wordpress/wp-content.
	if err := os.Symlink(theme, filepath.Join(content, "themes", filepath.Base(theme))); err != nil {
		t.Fatal(err)
	}

	config := "<?php\n// One test's site; Debian's wp-config.php loads it for the host " + s.Host + ".\n" +
		define("DB_NAME", cfg.DBName) + define("DB_USER", cfg.User) + define("DB_PASSWORD", cfg.Passwd) +
		define("DB_HOST", dbHost) + define("WP_HOME", s.URL) + define("WP_SITEURL", s.URL) +
		define("WP_CONTENT_DIR", content) +
		// Notices to the site's own log, never into a page.
		"define( 'WP_DEBUG', true );\ndefine( 'WP_DEBUG_DISPLAY', false );\n" +
		define("WP_DEBUG_LOG", filepath.Join(s.Dir, "debug.log")) +
		// No request the test did not send: no cron calling the site
		// back, nothing fetched from wordpress.org.
		"define( 'DISABLE_WP_CRON', true );\ndefine( 'WP_HTTP_BLOCK_EXTERNAL', true );\n"
	writeFile(t, filepath.Join(s.Dir, "config.php"), []byte(config))
	writeFile(t, filepath.Join(s.Dir, "bootstrap.php"), bootstrap)

	link := filepath.Join(ConfigDir, "config-"+s.Host+".php")
	if err := os.Symlink(filepath.Join(s.Dir, "config.php"), link); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
			testdb.Lacking(t, "cannot add a site's settings to %s, the one place Debian's WordPress reads them from (run as root, as .ci/run does): %v",
				ConfigDir, err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(link) })

	s.run(t, installer, "WPTEST_INSTALLING=1")
	return s
}

// needPHP returns php-cli's path, or stops the test.
func needPHP(t testing.TB) string {
	t.Helper()
	php, err := exec.LookPath("php")
	if err != nil {
		testdb.Lacking(t, "php is not installed (.ci/run installs Debian's php-cli)")
	}
	return php
}

// MUPlugins is the site's must-use plugins' directory: WordPress loads
// every PHP file in it, at every request.
func (s *Site) MUPlugins() string { return filepath.Join(s.Dir, "wp-content", "mu-plugins") }

// PHP runs code (PHP statements, without the opening tag) in php-cli with
// the site's WordPress loaded, and returns what it printed. The test fails
// when PHP does.
func (s *Site) PHP(t testing.TB, code string) string {
	t.Helper()
	return s.run(t, []byte("<?php\n"+code+"\n"))
}

// run runs a PHP file's text through bootstrap.php, with env added.
func (s *Site) run(t testing.TB, script []byte, env ...string) string {
	t.Helper()
	f, err := os.CreateTemp(s.Dir, "run-*.php")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(script); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.php, filepath.Join(s.Dir, "bootstrap.php"), f.Name())
	cmd.Env = append(os.Environ(), append(env, "WPTEST_HOST="+s.Host, "WPTEST_ROOT="+Root)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php: %v\n%s%s\nWordPress's debug log:\n%s", err, out, stderr.String(), s.DebugLog())
	}
	return string(out)
}

// DebugLog is what WordPress and PHP logged so far.
func (s *Site) DebugLog() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "debug.log"))
	return string(b)
}

// define is a PHP define() of a string constant.
func define(name, value string) string {
	return "define( '" + name + "', " + phpString(value) + " );\n"
}

// phpString quotes s as a single-quoted PHP string.
func phpString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
