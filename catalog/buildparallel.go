package catalog

import (
	"runtime"
	"sync"
)

// buildChunk is how many posts items builds before it lets go of the rows
// they consumed (a variable for the tests, which set it to 1): the fewer,
// the sooner the rows go and the lower the load's peak; a larger chunk
// held much of a small shop's rows through its first chunk
// (docs/performance.md#what-a-load-holds). A chunk is shared by the cores
// from workPerCore posts a core.
var buildChunk = 1024

// workPerCore is the fewest posts a build gives a core of its own (a
// chunk of buildChunk posts is shared by two cores), so that a patch of a
// few products is built on one goroutine.
const workPerCore = 500

// items builds the snapshot's form of the published products among the
// rows; others (trashed, drafts) give none. With consume, it clears what
// of the rows no later item reads once a chunk of items is built (their
// texts, their own and their variations' meta), so that a whole load's
// rows shrink while the snapshot grows: a large shop's rows are about as
// large as its snapshot, and both held whole would make the load's peak.
func (b *builder) items(sh *shop, tax *terms, rows *ProductRows, consume bool) []*item {
	r := readRows(rows)
	if consume {
		// What the items read of the meta and the terms is in r: the
		// maps go whole, with the images' meta and what no item reads. A
		// map keeps its table as entries are deleted: made anew as they
		// shrink, they would be most of a large build's garbage, and
		// deleting from them much of the build's work on one core.
		rows.Meta, rows.Terms = nil, nil
	}
	// Each item is built alone (its texts cleaned, its URL made, its lists
	// interned): the cores share the work of a large shop's load. Each
	// core builds in scratch of its own, which it reuses item after item.
	built := make([]*item, len(rows.Posts))
	in := newInterner()
	scratches := make([]scratch, runtime.GOMAXPROCS(0))
	chunk := len(rows.Posts)
	if consume {
		chunk = max(1, buildChunk)
	}
	for lo := 0; lo < len(rows.Posts); lo += chunk {
		hi := min(lo+chunk, len(rows.Posts))
		inParallel(hi-lo, workers(hi-lo), func(w, i int) {
			if post := &rows.Posts[lo+i]; post.Type == "product" && post.Status == "publish" {
				built[lo+i] = b.item(&scratches[w], in, sh, tax, r, lo+i)
			}
		})
		if !consume {
			continue
		}
		for i := lo; i < hi; i++ {
			if built[i] == nil {
				continue
			}
			post := &rows.Posts[i]
			post.Title, post.Excerpt, post.Content = "", "", ""
			r.files[i] = ""
			// A later grouped product reads a child's post, terms and
			// meta; no later item reads another product's, or its
			// variations'.
			if _, child := r.children[post.ID]; !child {
				r.meta[i], r.terms[i] = nil, nil
				post.Type, post.Status, post.Modified = "", "", ""
			}
			for _, k := range r.variations[post.ID] {
				r.meta[k] = nil
				v := r.post(k)
				*v = Post{ID: v.ID}
			}
		}
	}
	out := built[:0]
	for _, it := range built {
		if it != nil {
			out = append(out, it)
		}
	}
	clear(built[len(out):])
	return out
}

// workers is how many cores share n posts' work.
func workers(n int) int { return min(runtime.GOMAXPROCS(0), max(1, n/workPerCore)) }

// read is what items reads of the rows, by post: the posts by index
// (rows.Posts, then rows.Related), the meta of those an item reads, the
// products' images. Posts by index, not by ID: a lookup in the meta map,
// the build's largest, would hash the ID several times a product, and the
// map, made anew as its rows are consumed, most of a large build's garbage.
type read struct {
	rows *ProductRows
	// meta and terms are the posts' (nil for a post no item reads).
	meta  [][]MetaRow
	terms [][]int64
	// thumbs and files are each product's featured image (0: none) and
	// its _wp_attached_file, by index in rows.Posts.
	thumbs []int64
	files  []string
	// children are the grouped products' children by ID, with their
	// index (-1 for a child not among the rows): a child is read by its
	// grouped product too, which may come later: its post and meta stay.
	// variations are each variable product's, by its ID.
	children   map[int64]int
	variations map[int64][]int
}

func (r *read) post(k int) *Post {
	if n := len(r.rows.Posts); k >= n {
		return &r.rows.Related[k-n]
	}
	return &r.rows.Posts[k]
}

// readRows indexes the rows; the cores read the meta.
func readRows(rows *ProductRows) *read {
	n := len(rows.Posts)
	r := &read{rows: rows, meta: make([][]MetaRow, n+len(rows.Related)), terms: make([][]int64, n+len(rows.Related)), thumbs: make([]int64, n), files: make([]string, n),
		children: map[int64]int{}, variations: map[int64][]int{}}
	for _, ids := range rows.Children {
		for _, id := range ids {
			r.children[id] = -1
		}
	}
	for k := range len(r.meta) {
		p := r.post(k)
		if _, ok := r.children[p.ID]; ok {
			r.children[p.ID] = k
		}
		if k >= n && p.Type == "product_variation" {
			r.variations[p.Parent] = append(r.variations[p.Parent], k)
		}
	}
	inParallel(len(r.meta), workers(len(r.meta)), func(_, k int) {
		p := r.post(k)
		_, child := r.children[p.ID]
		published := k < n && p.Type == "product" && p.Status == "publish"
		if k >= n || child || published {
			r.meta[k] = rows.Meta[p.ID]
		}
		if child || published { // a variation's terms are not read
			r.terms[k] = rows.Terms[p.ID]
		}
		if published {
			if th, ok := thumbnail(r.meta[k]); ok {
				r.thumbs[k], r.files[k] = th, rows.Meta.First(th, MetaAttachedFile)
			}
		}
	})
	return r
}

// inParallel calls f for every index below n on the workers, worker w
// taking w, w+workers, …, and returns when all are done.
func inParallel(n, workers int, f func(w, i int)) {
	if workers <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				f(w, i)
			}
		}()
	}
	wg.Wait()
}

// scratch is what one core builds items in, reused from item to item:
// what an item reads only while it is built (its and its kids' prices),
// and the lists and texts the interner copies only when no item before
// had them, or packs into one string. Allocated for each item, they would
// be most of a build's garbage, which the collector pays for on the load's
// cores.
type scratch struct {
	prices    []string // _price values of the product and its kids
	kids      []kid
	cats      []*category
	fws       []int64
	catSlugs  []string
	catIDs    []int64
	fwSlugs   []string
	windows   []window
	kidPrices []kidPrice
	regs      []string
	texts     packer
	fold      []byte // a text folded for search, before the interner has it
	// excerpt and content are the last ones folded.
	excerpt, content lastText
	// formatted are the prices formatted so far, by stored value.
	formatted map[string]*string
}
