package catalog

import (
	"reflect"
	"testing"

	"catalogd/api"
)

// TestRulesProductURLs: get_permalink() of a product under the permalink
// settings, %product_cat% expanding to its deepest category with the
// ancestors.
func TestRulesProductURLs(t *testing.T) {
	const home = "https://shop.example"
	tests := []struct {
		name      string
		structure string
		base      string
		cats      []string
		want      string
	}{
		{"default base", "/%postname%/", "product", []string{"police"}, home + "/product/radar/"},
		{"no trailing slash", "/%postname%", "product", []string{"police"}, home + "/product/radar"},
		{"plain permalinks", "", "product", []string{"police"}, home + "/?product=radar"},
		{"custom base", "/%postname%/", "/shop/", []string{"police"}, home + "/shop/radar/"},
		{"empty base falls back", "/%postname%/", "", []string{"police"}, home + "/product/radar/"},
		{"category in the base", "/%postname%/", "/shop/%product_cat%", []string{"police"}, home + "/shop/jobs/police/radar/"},
		{"category in the base: a parent and its child", "/%postname%/", "/shop/%product_cat%", []string{"jobs", "police"},
			home + "/shop/jobs/police/radar/"},
		{"category in the base: the deepest across trees", "/%postname%/", "/shop/%product_cat%",
			[]string{"vehicles", "traffic", "police"}, home + "/shop/jobs/police/traffic/radar/"},
		{"category in the base: a top-level one", "/%postname%/", "/shop/%product_cat%", []string{"vehicles"},
			home + "/shop/vehicles/radar/"},
		{"category in the base, no trailing slash", "/%postname%", "/shop/%product_cat%", []string{"police"},
			home + "/shop/jobs/police/radar"},
		{"category in the base, plain permalinks", "", "/shop/%product_cat%", []string{"police"}, home + "/?product=radar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			s.options["permalink_structure"] = tt.structure
			s.options["woocommerce_permalinks"] = permalinks(tt.base, "")
			s.category("Vehicles", "vehicles", "", 0)
			s.category("Jobs", "jobs", "", 0)
			s.category("Police", "police", "jobs", 0)
			s.category("Traffic", "traffic", "police", 0)
			s.add(product{Title: "Radar", Regular: "1", Categories: tt.cats})
			c, _, _ := serve(t, s)
			if got := getProduct(t, c, "radar").URL; got != tt.want {
				t.Errorf("url %s, want %s", got, tt.want)
			}
			if got := getList(t, c, api.ListQuery{}).Products[0].URL; got != tt.want {
				t.Errorf("listed url %s, want %s", got, tt.want)
			}
		})
	}
}

// TestRulesImages: the featured image's full-size URL under the uploads
// settings; none for a product without one.
func TestRulesImages(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]string
		file    string
		want    string
	}{
		{"default uploads", nil, "2026/11/radar.jpg", "https://shop.example/wp-content/uploads/2026/11/radar.jpg"},
		{"upload_url_path", map[string]string{"upload_url_path": "https://cdn.example/media/"}, "2026/11/radar.jpg",
			"https://cdn.example/media/2026/11/radar.jpg"},
		{"relative upload_path", map[string]string{"upload_path": "files"}, "2026/11/radar.jpg", "https://shop.example/files/2026/11/radar.jpg"},
		{"siteurl differs from home", map[string]string{"siteurl": "https://shop.example/wp"}, "2026/11/radar.jpg",
			"https://shop.example/wp/wp-content/uploads/2026/11/radar.jpg"},
		{"offloaded media stores the whole URL", nil, "https://media.example/radar.jpg", "https://media.example/radar.jpg"},
		{"no featured image", nil, "", "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			for k, v := range tt.options {
				s.options[k] = v
			}
			s.add(product{Title: "Radar", Regular: "1", Image: tt.file})
			id := s.add(product{Title: "Dangling", Regular: "1"})
			s.setMeta(id, MetaThumbnail, "999") // the attachment was deleted
			c, _, _ := serve(t, s)
			if got := deref(getProduct(t, c, "radar").Image); got != tt.want {
				t.Errorf("image %s, want %s", got, tt.want)
			}
			if img := getProduct(t, c, "dangling").Image; img != nil {
				t.Errorf("a deleted attachment: image %s, want null", *img)
			}
		})
	}
}

// TestRulesFrameworks: a product's frameworks in the attribute's
// storefront order, and the framework filter.
func TestRulesFrameworks(t *testing.T) {
	tests := []struct {
		orderBy string
		rename  map[string]string // term names changed (name_num)
		want    []string
	}{
		{"menu_order", nil, []string{"esx", "qbcore", "qbox", "standalone"}}, // "order" meta 0…3
		{"name", map[string]string{"esx": "Zap"}, []string{"qbcore", "qbox", "standalone", "esx"}},
		{"id", map[string]string{"esx": "Zap"}, []string{"qbcore", "qbox", "standalone", "esx"}}, // WooCommerce drops "id": by name
		{"name_num", map[string]string{"esx": "10 ESX", "qbcore": "9 QBCore", "qbox": "Qbox", "standalone": "2 Standalone"},
			[]string{"qbox", "standalone", "qbcore", "esx"}},
	}
	for _, tt := range tests {
		t.Run(tt.orderBy, func(t *testing.T) {
			s := newStore()
			s.orderBy["framework"] = tt.orderBy
			for slug, name := range tt.rename {
				s.terms[s.termIx[taxFramework][slug]].Name = name
			}
			s.add(product{Title: "All", Regular: "1", Frameworks: []string{"qbox", "standalone", "qbcore", "esx"}})
			s.add(product{Title: "Garage", Type: typeNameVariable, Variations: []variation{
				{Framework: "qbox", Regular: "2"}, {Framework: "esx", Regular: "3"}}})
			c, _, _ := serve(t, s)
			if got := getProduct(t, c, "all").Frameworks; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("frameworks %v, want %v", got, tt.want)
			}
			if got := listSlugs(getList(t, c, api.ListQuery{Framework: "esx"}).Products); !reflect.DeepEqual(got, []string{"all", "garage"}) {
				t.Errorf("framework=esx: %v, want [all garage]", got)
			}
			if got := listSlugs(getList(t, c, api.ListQuery{Framework: "standalone"}).Products); !reflect.DeepEqual(got, []string{"all"}) {
				t.Errorf("framework=standalone: %v, want [all]", got)
			}
		})
	}
}
