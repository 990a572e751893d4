package httpapi_test

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"catalogd/internal/wpfixture"
)

// Slugs WordPress stored percent-encoded (sanitize_title_with_dashes:
// lowercase escapes of the UTF-8 bytes): "скрипт" and "полиция".
const (
	cyrProduct  = "%d1%81%d0%ba%d1%80%d0%b8%d0%bf%d1%82"
	cyrCategory = "%d0%bf%d0%be%d0%bb%d0%b8%d1%86%d0%b8%d1%8f"
)

// Every slug the API lists is fetchable and filterable exactly as listed
// (pasted into a URL, or escaped as a URL library does), with uppercase
// hex, and decoded to UTF-8 (escaped by the client, or raw on the wire);
// every spelling shares one cache entry; llms.txt's filter link works.
func TestNonASCIISlugs(t *testing.T) {
	shop := newShop()
	shop.Category("Полиция", cyrCategory, "", 4)
	shop.Add(wpfixture.Product{Title: "Скрипт", Slug: cyrProduct, RegularPrice: "9", Categories: []string{cyrCategory}})
	c := serveCached(t, shop, func() time.Time { return now })
	const products = base + "/catalog/products"
	decodedProduct, _ := url.PathUnescape(cyrProduct)
	decodedCategory, _ := url.QueryUnescape(cyrCategory)

	if got := productSlugs(t, get(t, c.srv, products+"?per_page=50").body); !slices.Contains(got, cyrProduct) {
		t.Fatalf("the list lacks %s: %v", cyrProduct, got)
	}
	var cats struct{ Categories []struct{ Slug string } }
	if err := json.Unmarshal(get(t, c.srv, base+"/catalog/categories").body, &cats); err != nil ||
		!slices.ContainsFunc(cats.Categories, func(x struct{ Slug string }) bool { return x.Slug == cyrCategory }) {
		t.Fatalf("the categories lack %s: %v %+v", cyrCategory, err, cats)
	}

	spellings := []struct{ name, path string }{
		{"as listed, pasted into the URL", products + "/" + cyrProduct},
		{"as listed, escaped", products + "/" + url.PathEscape(cyrProduct)},
		{"uppercase hex", products + "/" + strings.ToUpper(cyrProduct)},
		{"decoded, escaped by the client", products + "/" + url.PathEscape(decodedProduct)},
		{"as listed with a trailing slash", products + "/" + cyrProduct + "/"},
	}
	for i, s := range spellings {
		r := get(t, c.srv, s.path)
		var p struct{ Slug string }
		if err := json.Unmarshal(r.body, &p); err != nil || r.status != 200 || p.Slug != cyrProduct {
			t.Errorf("%s: GET %s: %d %s", s.name, s.path, r.status, r.body)
			continue
		}
		if want := map[bool]string{true: "MISS", false: "HIT"}[i == 0]; r.header.Get("X-Cache") != want {
			t.Errorf("%s: X-Cache %s, want %s: every spelling is one cache entry", s.name, r.header.Get("X-Cache"), want)
		}
	}
	// Raw UTF-8 in the request line, as some clients send it.
	addr := strings.TrimPrefix(c.srv.URL, "http://")
	if a, err := sendRaw(t, addr, "GET", request("GET", products+"/"+decodedProduct)); err != nil || a.status != 200 {
		t.Errorf("raw UTF-8 in the path: %v %d %s", err, a.status, a.body)
	}

	filters := []string{cyrCategory, url.QueryEscape(cyrCategory), strings.ToUpper(cyrCategory), url.QueryEscape(decodedCategory)}
	for i, f := range filters {
		r := get(t, c.srv, products+"?category="+f)
		if r.status != 200 || !slices.Equal(productSlugs(t, r.body), []string{cyrProduct}) {
			t.Errorf("?category=%s: %d %s", f, r.status, r.body)
		}
		if want := map[bool]string{true: "MISS", false: "HIT"}[i == 0]; r.header.Get("X-Cache") != want {
			t.Errorf("?category=%s: X-Cache %s, want %s: every spelling is one cache entry", f, r.header.Get("X-Cache"), want)
		}
	}

	// llms.txt's filter link for the category answers with its product.
	llms := string(get(t, c.srv, "/llms.txt").body)
	m := regexp.MustCompile("`"+regexp.QuoteMeta(siteURL)+"("+regexp.QuoteMeta(products)+`\?category=[^`+"`"+`]*)`+"`").
		FindAllStringSubmatch(llms, -1)
	found := false
	for _, link := range m {
		r := get(t, c.srv, link[1])
		if r.status != 200 {
			t.Errorf("llms.txt's link %s answers %d %s", link[1], r.status, r.body)
		}
		found = found || slices.Equal(productSlugs(t, r.body), []string{cyrProduct})
	}
	if !found {
		t.Errorf("no filter link of llms.txt lists %s:\n%s", cyrProduct, llms)
	}

	// Outside the pattern stays a 400.
	for _, bad := range []string{"/Police-Radar", "/a.b", "/%25zz", "/%25d1%25"} {
		checkError(t, get(t, c.srv, products+bad), 400, "shop_invalid_slug")
	}
}

// WordPress keeps "_" in a slug (sanitize_title_with_dashes strips
// everything but %a-z0-9, space, "_" and "-"), and FiveM resources are
// named that way (esx_policejob): such a product and category are listed,
// so they are fetchable and filterable as listed.
func TestUnderscoreSlugs(t *testing.T) {
	shop := newShop()
	shop.Category("ESX Jobs", "esx_jobs", "", 4)
	shop.Add(wpfixture.Product{Title: "esx_policejob", Slug: "esx_policejob", RegularPrice: "9", Categories: []string{"esx_jobs"}})
	c := serveCached(t, shop, func() time.Time { return now })
	const products = base + "/catalog/products"

	if got := productSlugs(t, get(t, c.srv, products+"?per_page=50").body); !slices.Contains(got, "esx_policejob") {
		t.Fatalf("the list lacks esx_policejob: %v", got)
	}
	r := get(t, c.srv, products+"/esx_policejob")
	var p struct{ Slug string }
	if err := json.Unmarshal(r.body, &p); err != nil || r.status != 200 || p.Slug != "esx_policejob" {
		t.Errorf("GET %s/esx_policejob: %d %s", products, r.status, r.body)
	}
	if r := get(t, c.srv, products+"?category=esx_jobs"); r.status != 200 ||
		!slices.Equal(productSlugs(t, r.body), []string{"esx_policejob"}) {
		t.Errorf("?category=esx_jobs: %d %s", r.status, r.body)
	}
	if r := get(t, c.srv, products+"/ESX_policejob"); r.status != 400 {
		t.Errorf("uppercase is still no slug: %d %s", r.status, r.body)
	}
}
