package catalog

import (
	"strconv"
	"time"
)

// Meta keys the mapping reads.
const (
	metaPrice        = "_price"
	metaRegularPrice = "_regular_price"
	metaSalePrice    = "_sale_price"
	metaSaleFrom     = "_sale_price_dates_from"
	metaSaleTo       = "_sale_price_dates_to"
	metaStockStatus  = "_stock_status"
	metaSKU          = "_sku"
	// metaProductAttributes is PHP-serialized (wpopt.ParseProductAttributes).
	metaProductAttributes = "_product_attributes"
)

// Meta keys that name other posts a product shows (its image, a grouped
// product's children) and an image's file: the Source follows them to read
// those posts too.
const (
	MetaThumbnail    = "_thumbnail_id"
	MetaChildren     = "_children"
	MetaAttachedFile = "_wp_attached_file"
)

// stored is what prepare reads of a product's rows, and the snapshot does
// not keep: outside the item, which a snapshot holds one of per product,
// and which it would make larger.
type stored struct {
	own prices
	// kids are a variable product's variations or a grouped product's
	// children, as read.
	kids []kid
}

// prices are a product's or variation's price meta as stored; prepare
// reads them once, and keeps of them only the sale windows.
type prices struct {
	price                   []string // every _price row, in meta_id order
	regular, sale, from, to string
	stockStatus             string
}

// kid is a variation or a grouped product's child.
type kid struct {
	published bool
	typ       productType
	modified  time.Time
	prices
}

// readPrices reads a post's price meta from its rows (Meta's value) in one
// pass: each key's first row, every _price row. The _price values are
// appended to *list, the worker's scratch, which p.price is a part of:
// they are read during the build only. A lookup of the post's rows per
// key hashed the meta, the build's largest map, five times a post.
func readPrices(rows []MetaRow, list *[]string) prices {
	var p prices
	var seen uint8 // the keys whose first row was read
	first := func(bit uint8, dst *string, v string) {
		if seen&bit == 0 {
			seen |= bit
			*dst = v
		}
	}
	start := len(*list)
	for _, r := range rows {
		switch r.Key {
		case metaPrice:
			*list = append(*list, r.Value)
		case metaRegularPrice:
			first(1, &p.regular, r.Value)
		case metaSalePrice:
			first(2, &p.sale, r.Value)
		case metaSaleFrom:
			first(4, &p.from, r.Value)
		case metaSaleTo:
			first(8, &p.to, r.Value)
		case metaStockStatus:
			first(16, &p.stockStatus, r.Value)
		}
	}
	if len(*list) > start {
		p.price = (*list)[start:len(*list):len(*list)]
	}
	return p
}

// metaFirst is Meta.First on a post's rows.
func metaFirst(rows []MetaRow, key string) string {
	for _, r := range rows {
		if r.Key == key {
			return r.Value
		}
	}
	return ""
}

// thumbnail is the ID of the post's featured image, if it names one.
func thumbnail(meta []MetaRow) (int64, bool) {
	th, err := strconv.ParseInt(metaFirst(meta, MetaThumbnail), 10, 64)
	return th, err == nil && th > 0
}
