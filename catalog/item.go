package catalog

import "time"

// item is one product as a snapshot keeps it: what the storefront shows
// of it that does not move with the clock, computed once, and the prices
// and sale dates its price rules read at every request.
type item struct {
	id int64
	// text holds the short texts end to end, each ending at its ends
	// entry (texts: slug, name, url, image, title key, SKU, search title,
	// summary), and the list's summary after them when it is a
	// truncation of the summary; the accessors (slug, name, …) cut them
	// out. A string per text would be a pointer each to the same object,
	// and the collector marks every pointer word of every item at every
	// cycle.
	text string
	ends [textCount]uint32
	// The flags fill the padding ends leaves before the next word.
	inStock bool
	typ     productType
	// protected is whether it has a password: its texts are hidden, and
	// an anonymous visitor's search does not find it.
	protected   bool
	purchasable bool // computed by prepare
	// image is also a substring of text, kept as a field of its own: the
	// wire's Image points at it (product). "": none (the wire's null).
	image  string
	thumb  int64   // image's attachment: an edit of its file (the media library's) changes image
	ttids  []int64 // every term it carries, for the filters
	cats   []string
	catIDs []int64
	fws    []string
	// attrs are the visible attributes; nil for none. A pointer: the item
	// stays in its allocation size class, which a slice's three words
	// pushed it out of.
	attrs *[]attribute
	// modified is the newest post_modified_gmt of its own and every
	// variation's or child's, in Unix seconds (0: none): a time.Time
	// would be three words, one a pointer, in every item.
	modified int64
	// description is the plain text of the content (the summaries are in
	// text); like them, it is empty for a protected product.
	description string
	childIDs    []int64 // a grouped product's _children list
	// Computed by prepare: what the clock does not move.
	price, regular *string
	windows        []window
	prange         *priceRange // nil: the storefront shows one price
	varIDs         []int64     // a variable product's variations, enabled or not
	wpml           WPMLElement
	// rank is what the list's sorts and filters read (lookup.go).
	rank ranks
	// searchExcerpt and searchContent are post_excerpt and post_content
	// as stored, HTML and all, folded as a search compares them
	// (wpsearch.Fold); shared by the products with equal ones (the
	// interner's). Empty for a protected product: no search finds it.
	searchExcerpt, searchContent string
}

// The short texts of an item, in the order they are packed in its text.
const (
	textSlug = iota
	textName
	textURL
	textImage
	textTitleKey // Post.TitleKey: bytes, not text
	textSKU
	textSearchTitle // the stored title folded (wpsearch.Fold), what a search reads
	textSummary
	textCount
)

// cut is the i-th of the item's short texts.
func (it *item) cut(i int) string {
	from := uint32(0)
	if i > 0 {
		from = it.ends[i-1]
	}
	return it.text[from:it.ends[i]]
}

func (it *item) slug() string { return it.cut(textSlug) }

// name is plain text.
func (it *item) name() string { return it.cut(textName) }

func (it *item) url() string { return it.cut(textURL) }

// titleKey orders the items as the database orders their titles.
func (it *item) titleKey() string { return it.cut(textTitleKey) }

// sku is the _sku meta as stored; "" for none.
func (it *item) sku() string { return it.cut(textSKU) }

// searchTitle is post_title as stored, folded as a search compares it.
func (it *item) searchTitle() string { return it.cut(textSearchTitle) }

// modifiedTime is modified as a time; zero for none.
func (it *item) modifiedTime() time.Time {
	if it.modified == 0 {
		return time.Time{}
	}
	return time.Unix(it.modified, 0).UTC()
}

// summary is the whole plain-text excerpt.
func (it *item) summary() string { return it.cut(textSummary) }

// listSummary is the list's truncation of the summary: what text holds
// after the summary, or the summary itself when short enough (Truncate
// never makes a truncation empty: it ends in an ellipsis).
func (it *item) listSummary() string {
	if end := it.ends[textSummary]; int(end) < len(it.text) {
		return it.text[end:]
	}
	return it.summary()
}
