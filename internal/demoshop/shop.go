// Package demoshop is the demo shop: a WooCommerce store selling FiveM
// game-server scripts, with every awkward state catalogd must get right
// (sales in every phase, hidden and unpublished products, password
// protection, variable, grouped and external products, multibyte texts).
// deploy/seed writes it to demo.sql for docker compose and manual testing;
// tests and the soak build it with Shop and load it with wpfixture.
package demoshop

import (
	"fmt"
	"time"

	"catalogd/internal/wpfixture"
)

// Sale windows, relative to the shop's fixed save time (2026-11-01).
var (
	activeFrom = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)      // running since January…
	activeTo   = time.Date(2035, 12, 31, 23, 59, 59, 0, time.UTC) // …for years
	futureFrom = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)      // not started
	futureTo   = time.Date(2030, 1, 31, 23, 59, 59, 0, time.UTC)
	endedFrom  = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC) // over; _sale_price stays
	endedTo    = time.Date(2025, 6, 30, 23, 59, 59, 0, time.UTC)
	// laggedFrom is after the save time but before the real clock the demo
	// runs against: the sale is on, yet _price still holds the regular
	// price because the scheduled-sale job has not run.
	laggedFrom = time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
)

// noImage marks a product that has no picture at all. Products whose Image
// is empty get "2026/10/<slug>.jpg", unless they have a gallery.
const noImage = "-"

type category struct {
	name, slug, parent string
	order              int
}

// categories in creation order (parents first). The order values differ
// from the alphabetical order on purpose; "Uncategorized" has none (0).
var categories = []category{
	{"Vehicles", "vehicles", "", 0},
	{"Garages", "garages", "vehicles", 0},
	{"Jobs", "jobs", "", 1},
	{"Emergency Services", "emergency-services", "jobs", 0},
	{"Police", "police", "emergency-services", 0},
	{"EMS", "ems", "emergency-services", 1},
	{"Fire Department", "fire-department", "emergency-services", 0}, // only out-of-stock products
	{"Civilian Jobs", "civilian-jobs", "jobs", 1},
	{"UI & HUD", "ui-hud", "", 2},
	{"Economy", "economy", "", 3},
	{"Banking", "banking", "economy", 0},
	{"Housing", "housing", "", 4},
	{"Maps & MLOs", "maps-mlos", "", 5},
	{"Utilities", "utilities", "", 6},
	{"Anticheat", "anticheat", "", 7}, // only hidden, search-only and draft products
}

// groupedChildren names the children of grouped products by slug; they
// are added before the grouped product.
var groupedChildren = map[string][]string{
	"emergency-services-bundle": {"police-mdt", "ems-job", "fire-department-job"},
}

// Shop returns the demo shop. Its save time is fixed, so the SQL it writes
// is the same on every run.
func Shop() *wpfixture.Shop {
	shop := wpfixture.New("wp_", "http://localhost:8080")
	shop.Now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	shop.SetOption("blogname", "Northwind Scripts")
	shop.SetOption("blogdescription", "Premium FiveM scripts for ESX, QBCore and Qbox servers")
	shop.SetOption("woocommerce_currency", "EUR")
	shop.SetOption("woocommerce_price_num_decimals", "2")

	for _, c := range categories {
		shop.Category(c.name, c.slug, c.parent, c.order)
	}
	// Tags, named out of their slugs' order: the product page lists them
	// by name.
	for _, t := range [][2]string{{"Roleplay", "roleplay"}, {"Best seller", "bestseller"}, {"Escrow free", "escrow-free"},
		{"New", "new"}} {
		shop.Tag(t[0], t[1])
	}
	ids := map[string]int64{}
	for _, p := range products() {
		for _, c := range groupedChildren[p.Slug] {
			id, ok := ids[c]
			if !ok {
				panic(fmt.Sprintf("seed: grouped product %s: child %s not added before it", p.Slug, c))
			}
			p.Children = append(p.Children, id)
		}
		switch {
		case p.Image == noImage:
			p.Image = ""
		case p.Image == "" && len(p.Gallery) == 0 && p.Slug != "":
			p.Image = "2026/10/" + p.Slug + ".jpg"
		}
		id := shop.Add(p)
		if p.Slug != "" {
			ids[p.Slug] = id
		}
	}
	return shop
}
