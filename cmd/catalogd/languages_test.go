package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"catalogd/internal/proctest"
	"catalogd/internal/testdb"
	"catalogd/internal/wpfixture"
)

// /readyz means the catalog can be read, not just that its tables exist; a
// translation plugin's leftovers neither empty nor break it (issue 14).
func TestReadyMeansTheCatalogLoads(t *testing.T) {
	tests := []struct {
		name      string
		shop      func() *wpfixture.Shop
		damage    string // SQL run on the loaded shop
		wantReady bool
		wantLog   string // a line of the start-up log
	}{
		{"polylang option without the plugin", func() *wpfixture.Shop {
			s := jobsShop()
			s.SetOption("polylang", wpfixture.Serialize(map[string]any{"default_lang": "en", "force_lang": 1}, "default_lang", "force_lang"))
			return s
		}, "", true, "translation plugin leftovers ignored: Polylang settings"},
		{"wpml settings without its table", func() *wpfixture.Shop {
			s := jobsShop()
			s.SetOption("icl_sitepress_settings", wpfixture.Serialize(map[string]any{"default_language": "en"}, "default_language"))
			s.ActivatePlugin("sitepress-multilingual-cms/sitepress.php")
			return s
		}, "", true, "WPML is active but its table icl_translations is missing"},
		{"active wpml with a damaged table", func() *wpfixture.Shop {
			s := wpfixture.New("wp_", "https://db-home.example")
			s.EnableWPML("en")
			s.Add(wpfixture.Product{Title: "Police Radar", RegularPrice: "20"})
			return s
		}, "ALTER TABLE wp_icl_translations RENAME COLUMN language_code TO lang", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn, raw := testdb.Load(t, tt.shop())
			if tt.damage != "" {
				if _, err := raw.Exec(tt.damage); err != nil {
					t.Fatal(err)
				}
			}
			r := start(t, dsn)
			status, body := r.waitReadyz(t, proctest.Settled, 10*time.Second)
			if (status == http.StatusOK) != tt.wantReady {
				t.Fatalf("/readyz = %d %q, want ready=%v", status, body, tt.wantReady)
			}
			if !tt.wantReady {
				return
			}
			// Written before /readyz says ready, the line reaches this
			// process through a pipe, which a loaded machine may copy later.
			r.poll(t, 10*time.Second, "the start-up log line "+tt.wantLog, func() bool {
				return strings.Contains(r.Stderr.String(), tt.wantLog)
			})
			if n := strings.Count(r.Stderr.String(), tt.wantLog); n != 1 {
				t.Errorf("start-up log has %q %d times, want once:\n%s", tt.wantLog, n, r.Stderr.String())
			}
			status, m := getJSON(t, r.Client, r.API+"/catalog")
			if status != 200 || m["product_count"] != float64(2) {
				t.Errorf("index = %d %v, want 200 with product_count 2", status, m)
			}
			if status, m := getJSON(t, r.Client, r.API+"/catalog/products/police-radar"); status != 200 {
				t.Errorf("product = %d %v, want 200", status, m)
			}
		})
	}
}

// A configured language the site lacks stops start-up with one line naming
// the site's languages; one it has without products starts and says so once
// (issue 18).
func TestConfiguredLanguage(t *testing.T) {
	shop := func(langs ...string) *wpfixture.Shop {
		s := wpfixture.New("wp_", "https://db-home.example")
		s.EnablePolylang(langs...)
		s.Add(wpfixture.Product{Title: "Police Radar", RegularPrice: "20"})
		return s
	}
	t.Run("a language the site lacks", func(t *testing.T) {
		dsn, _ := testdb.Load(t, shop("en", "de"))
		p := launch(t, dsn, "CATALOG_LANGUAGE=fr")
		if code := p.exitCode(t, 10*time.Second); code == 0 {
			t.Fatalf("exit code 0, want non-zero; stderr:\n%s", p.Stderr.String())
		}
		var lines []string
		for _, l := range strings.Split(p.Stderr.String(), "\n") {
			if strings.Contains(l, `"fr"`) {
				lines = append(lines, l)
			}
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "de, en") {
			t.Errorf("want one line naming fr and the site's languages de, en; stderr:\n%s", p.Stderr.String())
		}
	})
	t.Run("a language without products", func(t *testing.T) {
		dsn, _ := testdb.Load(t, shop("en", "de"))
		p := start(t, dsn, "CATALOG_LANGUAGE=de")
		if status, body := p.waitReadyz(t, proctest.Settled, 10*time.Second); status != http.StatusOK {
			t.Fatalf("/readyz = %d %q", status, body)
		}
		// The log's lines are written in batches: wait for the line
		// (it is logged before readiness), then count.
		_ = p.Poll(5*time.Second, func() bool { return strings.Contains(p.Stderr.String(), "has no published products") })
		if n := strings.Count(p.Stderr.String(), "has no published products"); n != 1 {
			t.Errorf("the log says %d times that de has no products, want once:\n%s", n, p.Stderr.String())
		}
	})
}
