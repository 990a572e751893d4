package catalog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"unsafe"
)

// A snapshot's digest names its content: two catalogd processes that read
// the same shop hold snapshots of one digest, however each got there (a
// whole read, or changes applied one by one), and a snapshot of any other
// content has another. Version cannot say that: it counts one process's
// snapshots. The edge purger compares digests at start (a response at the
// edge filled from the same content needs no purge; docs/edge-purge.md).
//
// It is a hash of the shop's rows but its products (settings, terms,
// translation tables: every whole read reads them, and a change to them
// makes a whole read) and the sum of a hash of every product as the
// snapshot holds it, so that a change of some products costs the hashes of
// those only.

// digest is the content's: shop names the rows but the products, items
// sums every product's itemSum in two 64-bit lanes (addition is order-free,
// and a product replaced is subtracted).
type digest struct {
	shop  [sha256.Size]byte
	items [2]uint64
}

// shopSum hashes the whole read's rows but the products, and the settings
// that shape what the snapshot answers (the site and uploads URLs, the
// links, the language): a replica started with another --site-url or
// --sitemap-url answers otherwise from the same rows. encoding/json writes
// maps in key order: the same rows give the same bytes.
func shopSum(rows *ShopRows, cfg Config) [sha256.Size]byte {
	type shaping struct{ SiteURL, UploadsURL, DevelopersURL, SitemapURL, Language string }
	r := *rows
	r.Products = ProductRows{}
	// What the read cost the database is no content: every pod's differs.
	r.Cost = 0
	// Why a table could not be read is the server's error text, which
	// names the client's address: every pod its own. Only which tables
	// (and whether the network's) could not be read shapes the answers.
	r.Unreadable = make(map[string]string, len(rows.Unreadable))
	for table := range rows.Unreadable {
		r.Unreadable[table] = ""
	}
	if r.NetworkNote != "" {
		r.NetworkNote = "unreadable"
	}
	b, err := json.Marshal(struct {
		Rows     *ShopRows
		Settings shaping
	}{&r, shaping{cfg.SiteURL, cfg.UploadsURL, cfg.DevelopersURL, cfg.SitemapURL, cfg.Language}})
	if err != nil {
		// Strings, numbers, maps and slices of them: never fails. Were it
		// to, an unequal digest only costs a purge at start.
		b = []byte(err.Error())
	}
	return sha256.Sum256(b)
}

// itemHasher hashes items, one at a time, into a buffer it reuses: a
// whole read hashes every product. Two CRC-32s of the item's bytes (a
// long string's own two in its place), by two polynomials (Castagnoli
// and IEEE, both computed by the CPU's instructions) rather than
// SHA-256, far dearer in a build (docs/performance.md#what-a-load-holds).
// They guard against accidents (an edit that happens to leave the digest
// as it was), not an adversary: the shop's own data is hashed, and an
// unequal digest only costs a purge.
type itemHasher struct {
	buf []byte
	// long are the sums of the long strings hashed last, by where they
	// are: a long string goes into an item's hash as its sums, and
	// products share long texts (the interner's), hashed once then.
	long [4]longSum
	next int
}

type longSum struct {
	p   *byte
	n   int
	sum uint64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newItemHasher() *itemHasher { return &itemHasher{} }

func (x *itemHasher) i64(v int64) { x.buf = binary.LittleEndian.AppendUint64(x.buf, uint64(v)) }

func (x *itemHasher) str(s string) {
	x.i64(int64(len(s)))
	if len(s) < 64 {
		x.buf = append(x.buf, s...)
		return
	}
	p := unsafe.StringData(s)
	for _, l := range x.long {
		if l.p == p && l.n == len(s) {
			x.i64(int64(l.sum))
			return
		}
	}
	b := unsafe.Slice(p, len(s)) // read only
	sum := uint64(crc32.Checksum(b, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(b))
	x.long[x.next] = longSum{p, len(s), sum}
	x.next = (x.next + 1) % len(x.long)
	x.i64(int64(sum))
}

func (x *itemHasher) ids(v []int64) {
	x.i64(int64(len(v)))
	for _, id := range v {
		x.i64(id)
	}
}

func (x *itemHasher) flag(v bool) {
	if v {
		x.i64(1)
	} else {
		x.i64(0)
	}
}

func (x *itemHasher) optional(p *string) {
	x.flag(p != nil)
	if p != nil {
		x.str(*p)
	}
}

func (x *itemHasher) priceRange(r *priceRange) {
	x.flag(r != nil)
	if r == nil {
		return
	}
	x.flag(r.fixed != nil)
	if r.fixed != nil {
		x.str(r.fixed.Min)
		x.str(r.fixed.Max)
	}
	x.i64(int64(len(r.kids)))
	for _, k := range r.kids {
		x.optional(k.regular)
		x.optional(k.sale)
	}
}

// sum hashes everything an item holds. Every field of item is here:
// TestItemSumCoversEveryField fails when one is added and not hashed.
func (x *itemHasher) sum(it *item) [2]uint64 {
	x.buf = x.buf[:0]
	x.i64(it.id)
	x.str(it.text)
	for _, e := range it.ends {
		x.i64(int64(e))
	}
	x.str(it.image)
	x.i64(it.thumb)
	x.ids(it.ttids)
	x.i64(int64(len(it.cats)))
	for _, c := range it.cats {
		x.str(c)
	}
	x.ids(it.catIDs)
	x.i64(int64(len(it.fws)))
	for _, f := range it.fws {
		x.str(f)
	}
	var attrs []attribute
	if it.attrs != nil {
		attrs = *it.attrs
	}
	x.i64(int64(len(attrs)))
	for _, a := range attrs {
		x.str(a.key)
		x.str(a.label)
		x.flag(a.global)
		x.str(a.local)
	}
	x.flag(it.inStock)
	x.i64(int64(it.typ))
	x.flag(it.protected)
	x.i64(it.modified)
	x.str(it.description)
	x.ids(it.childIDs)
	x.optional(it.price)
	x.optional(it.regular)
	x.flag(it.purchasable)
	x.i64(int64(len(it.windows)))
	for _, w := range it.windows {
		x.flag(w.hasSale)
		x.flag(w.below)
		x.flag(w.hasFrom)
		x.flag(w.hasTo)
		x.i64(w.from)
		x.i64(w.to)
	}
	x.priceRange(it.prange)
	x.ids(it.varIDs)
	x.str(it.wpml.Language)
	x.i64(it.wpml.TRID)
	x.str(it.searchExcerpt)
	x.str(it.searchContent)
	r := &it.rank
	for _, v := range []int64{int64(r.minPrice), int64(r.maxPrice), r.sales, r.date, int64(r.rating), int64(r.ratings), int64(r.menuOrder)} {
		x.i64(v)
	}
	return [2]uint64{uint64(crc32.Checksum(x.buf, castagnoli)), uint64(crc32.ChecksumIEEE(x.buf))}
}

func (d *digest) add(x *itemHasher, it *item) {
	s := x.sum(it)
	d.items[0] += s[0]
	d.items[1] += s[1]
}

func (d *digest) remove(x *itemHasher, it *item) {
	s := x.sum(it)
	d.items[0] -= s[0]
	d.items[1] -= s[1]
}

// Digest names the snapshot's content (a hex string): equal for equal
// content, in any process.
func (s *Snapshot) Digest() string {
	b := make([]byte, 0, len(s.sum.shop)+16)
	b = append(b, s.sum.shop[:]...)
	b = binary.LittleEndian.AppendUint64(b, s.sum.items[0])
	b = binary.LittleEndian.AppendUint64(b, s.sum.items[1])
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
