package feedops

import (
	"context"
	"fmt"
	"strings"
	"time"

	"catalogd/api"
	"catalogd/catalog"
	"catalogd/internal/wpfixture"
)

// opsShop is the shop the operations run on: one product (or category)
// per operation, so that each check is about its own operation, and two
// scheduled products, one going live by cron and one far in the future
// that stays scheduled (it freezes MAX(post_modified_gmt)).
type opsShop struct {
	shop                    *wpfixture.Shop
	bundle, standaloneVar   int64
	kitA                    int64
	priceEdit, stocky       int64
	trashy, drafty, privy   int64
	doomed, soon, hideme    int64
	pictured, summary       int64
	picture                 int64 // pictured's image, once replaced
	mover, framed, delta    int64
	radar, soldOut, farAway int64
	tagged, skued           int64
	specced                 int64
}

func newOpsShop(objectCache bool) *opsShop {
	s := wpfixture.New("wp_", "https://shop.example")
	now := s.Now
	o := &opsShop{shop: s}
	s.Category("Alpha", "alpha", "", 1)
	s.Category("Beta", "beta", "", 2)
	s.Category("Gamma", "gamma", "", 3)
	s.Category("Delta", "delta", "alpha", 0)
	add := func(p wpfixture.Product) int64 {
		if len(p.Categories) == 0 {
			p.Categories = []string{"alpha"}
		}
		if p.RegularPrice == "" && p.Type == "" {
			p.RegularPrice = "10"
		}
		return s.Add(p)
	}
	o.radar = add(wpfixture.Product{Title: "Radar", Frameworks: []string{"esx"}})
	o.priceEdit = add(wpfixture.Product{Title: "Price Edit"})
	o.bundle = add(wpfixture.Product{Title: "Bundle", Type: "variable", Variations: []wpfixture.Variation{
		{Framework: "esx", RegularPrice: "10"}, {Framework: "standalone", RegularPrice: "8"}}})
	o.standaloneVar = o.bundle + 2
	o.kitA = add(wpfixture.Product{Title: "Kit A", RegularPrice: "4"})
	kitB := add(wpfixture.Product{Title: "Kit B", RegularPrice: "6"})
	add(wpfixture.Product{Title: "Kit", Type: "grouped", Children: []int64{o.kitA, kitB}})
	stored := func(v string) *string { return &v }
	add(wpfixture.Product{Title: "Sale Start", SalePrice: "7", SaleFrom: now.Add(-time.Hour), StoredPrice: stored("10")})
	add(wpfixture.Product{Title: "Sale End", SalePrice: "6", SaleFrom: now.Add(-48 * time.Hour), SaleTo: now.Add(-time.Hour),
		StoredPrice: stored("6")})
	one := 1
	o.stocky = add(wpfixture.Product{Title: "Stocky", Stock: &one})
	o.trashy = add(wpfixture.Product{Title: "Trashy"})
	o.drafty = add(wpfixture.Product{Title: "Drafty"})
	o.privy = add(wpfixture.Product{Title: "Privy"})
	o.doomed = add(wpfixture.Product{Title: "Doomed"})
	o.soon = add(wpfixture.Product{Title: "Soon", Status: "future", Date: now.Add(time.Hour)})
	o.farAway = add(wpfixture.Product{Title: "Far Away", Status: "future", Date: now.Add(60 * 24 * time.Hour)})
	o.hideme = add(wpfixture.Product{Title: "Hide Me"})
	o.pictured = add(wpfixture.Product{Title: "Pictured", Image: "2026/11/old.jpg"})
	o.summary = add(wpfixture.Product{Title: "Summary", Excerpt: "<p>Old summary</p>"})
	o.mover = add(wpfixture.Product{Title: "Mover"})
	o.framed = add(wpfixture.Product{Title: "Framed", Frameworks: []string{"esx"}})
	o.delta = add(wpfixture.Product{Title: "Delta Thing", Categories: []string{"delta"}})
	add(wpfixture.Product{Title: "Beta Thing", Categories: []string{"beta"}})
	add(wpfixture.Product{Title: "Gamma Thing", Categories: []string{"gamma"}})
	o.soldOut = add(wpfixture.Product{Title: "Sold Out", StockStatus: "outofstock"})
	s.Tag("Police", "police")
	s.Tag("Vehicles", "vehicles")
	o.tagged = add(wpfixture.Product{Title: "Tagged", Tags: []string{"police"}})
	o.skued = add(wpfixture.Product{Title: "Skued", SKU: "SKU-1"})
	s.Attribute("size", "Size", "menu_order", [2]string{"Small", "small"}, [2]string{"Large", "large"})
	o.specced = add(wpfixture.Product{Title: "Specced", Attributes: []wpfixture.Attribute{
		{Name: "pa_size", Values: []string{"small"}}, {Name: "Screen", Values: []string{"15 in"}}}})
	if !objectCache {
		wpfixture.SeedTransients(s, now, o.bundle, o.radar, o.stocky)
	}
	return o
}

// Op is one operation and what a visitor sees after it.
type Op struct {
	name string
	// Cheap: a poll's cheap round sees it (an option, a term's name,
	// parent or order, a scheduled product leaving the future set, a new
	// post); else only the full scan does (post_modified_gmt or the status
	// of an existing product moved).
	Cheap bool
	// logOnly: only the binary log shows it (no posts row moves); polling
	// shows it at the whole read every ten minutes, which the test does
	// not wait for.
	logOnly bool
	// Unmodified: the operation moves no post_modified_gmt (a row
	// deleted), so the delta through an index on it does not see it; the
	// full scan behind the delta does.
	Unmodified bool
	do         func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error
	// check returns nil when the visitor sees the operation's effect, else
	// what they see instead.
	check func(ctx context.Context, cat *catalog.Catalog, s *opsShop) error
}

// feedOps are the operations, in the order they run on one shop.
var feedOps = []Op{
	{name: "admin price edit", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditPrice(ctx, s.priceEdit, "12", "")
	}, check: price("price-edit", "12.00")},
	{name: "variation price", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditVariationPrice(ctx, s.standaloneVar, "5", "")
	}, check: both(price("bundle", "5.00"), priceRange("bundle", "5.00–10.00"))},
	// A grouped child's save leaves the grouped product's own _price rows
	// as they were (WooCommerce syncs a post_parent only), so the check is
	// on what the children give: the grouped regular price and the range
	// WC_Product_Grouped::get_price_html shows. (The catalog's grouped
	// price still comes from those stale rows: 4.00 after this edit.)
	{name: "grouped child price", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditPrice(ctx, s.kitA, "3", "")
	}, check: both(regularPrice("kit", "3.00"), priceRange("kit", "3.00–6.00"))},
	{name: "scheduled sale starts", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return started(o.StartSales(ctx))
	}, check: price("sale-start", "7.00")},
	{name: "scheduled sale ends", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return started(o.EndSales(ctx))
	}, check: price("sale-end", "10.00")},
	{name: "order reduces stock to 0", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.OrderReducesStock(ctx, s.stocky, 1)
	}, check: inStock("stocky", false)},
	{name: "refund restores stock", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.RefundRestoresStock(ctx, s.stocky, 1)
	}, check: inStock("stocky", true)},
	{name: "trash", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.Trash(ctx, s.trashy)
	}, check: gone("trashy")},
	{name: "restore from trash", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.Untrash(ctx, s.trashy)
	}, check: listed("trashy", "")},
	{name: "draft", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetStatus(ctx, s.drafty, "draft")
	}, check: gone("drafty")},
	{name: "private", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetStatus(ctx, s.privy, "private")
	}, check: gone("privy")},
	{name: "permanent delete", Unmodified: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.DeletePermanently(ctx, s.doomed)
	}, check: gone("doomed")},
	{name: "scheduled product goes live", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.PublishFuture(ctx, s.soon)
	}, check: listed("soon", "")},
	{name: "catalog visibility hidden", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetCatalogVisibility(ctx, s.hideme, "hidden")
	}, check: unlisted("hide-me")},
	{name: "featured image replaced", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		att, err := o.ReplaceImage(ctx, s.pictured, "2026/11/new.jpg")
		s.picture = att
		return err
	}, check: image("pictured", "/2026/11/new.jpg")},
	{name: "image edited in the media library", logOnly: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditImageFile(ctx, s.picture, "2026/11/new-e1764072000.jpg")
	}, check: image("pictured", "/2026/11/new-e1764072000.jpg")},
	{name: "short description edited", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditExcerpt(ctx, s.summary, "<p>Brand new summary</p>")
	}, check: summary("summary", "Brand new summary")},
	{name: "moved to another category", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetCategories(ctx, s.mover, "gamma")
	}, check: listed("mover", "gamma")},
	{name: "category renamed", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.RenameCategory(ctx, "beta", "Beta & Co")
	}, check: category("beta", func(c api.Category) error {
		return want("name", c.Name, "Beta & Co")
	})},
	{name: "category re-parented", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.ReparentCategory(ctx, "delta", "gamma")
	}, check: category("delta", func(c api.Category) error {
		if c.Parent == nil {
			return want("parent", "<none>", "gamma")
		}
		return want("parent", *c.Parent, "gamma")
	})},
	{name: "categories re-ordered", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.MoveCategoryBefore(ctx, "gamma", "alpha")
	}, check: categoryBefore("gamma", "alpha")},
	{name: "tag's slug edited", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditTag(ctx, "police", "Law Enforcement", "law-enforcement")
	}, check: tags("tagged", "law-enforcement")},
	{name: "tag added to a product", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetTags(ctx, s.tagged, "law-enforcement", "vehicles")
	}, check: tags("tagged", "law-enforcement", "vehicles")},
	{name: "SKU edited", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditSKU(ctx, s.skued, "SKU-2")
	}, check: sku("skued", "SKU-2")},
	{name: "framework term added", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetFrameworks(ctx, s.framed, false, "esx", "qbox")
	}, check: listedIn("framed", api.ListQuery{Framework: "qbox"})},
	{name: "attribute term renamed", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditAttributeTerm(ctx, "pa_size", "small", "Petite")
	}, check: attributes("specced", "Size: Petite; Screen: 15 in")},
	{name: "attribute label edited", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.EditAttributeLabel(ctx, "size", "Dimensions")
	}, check: attributes("specced", "Dimensions: Petite; Screen: 15 in")},
	{name: "product's attributes edited", do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SetAttributes(ctx, s.specced, nil, wpfixture.Attribute{Name: "pa_size", Values: []string{"small"}},
			wpfixture.Attribute{Name: "Screen", Values: []string{"17 in"}})
	}, check: attributes("specced", "Dimensions: Petite; Screen: 17 in")},
	{name: "new product published", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		_, err := o.PublishNew(ctx, wpfixture.NewProduct{Title: "Fresh Product", RegularPrice: "9",
			Excerpt: "<p>Fresh</p>", Categories: []string{"beta"}})
		return err
	}, check: listed("fresh-product", "beta")},
	{name: "currency", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SaveSettings(ctx, [2]string{"woocommerce_currency", "EUR"})
	}, check: func(ctx context.Context, cat *catalog.Catalog, s *opsShop) error {
		ix, err := cat.Index(ctx)
		if err != nil {
			return err
		}
		return want("currency", ix.Currency, "EUR")
	}},
	{name: "decimals", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SaveSettings(ctx, [2]string{"woocommerce_currency", "EUR"}, [2]string{"woocommerce_price_num_decimals", "3"})
	}, check: price("radar", "10.000")},
	{name: "hide out of stock", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SaveSettings(ctx, [2]string{"woocommerce_hide_out_of_stock_items", "yes"})
	}, check: unlisted("sold-out")},
	{name: "permalinks", Cheap: true, do: func(ctx context.Context, o *wpfixture.Ops, s *opsShop) error {
		return o.SavePermalinks(ctx, "shop-item")
	}, check: product("radar", func(p *catalog.Product) error {
		if !strings.Contains(p.URL, "/shop-item/radar/") {
			return fmt.Errorf("url %s, want …/shop-item/radar/", p.URL)
		}
		return nil
	})},
}
