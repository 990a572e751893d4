// Package wpfixture builds WordPress + WooCommerce databases the way
// WooCommerce's own PHP stores them: product posts with their meta (_price
// written as WooCommerce's save does, several rows for variable and grouped
// products), product_type and product_visibility terms as relationships,
// HTML-escaped term names, serialized options, attachments. Tests, the demo
// seed and the benchmark generator all build shops with it, into a database
// or into an SQL file.
package wpfixture

import (
	_ "embed"
	"fmt"
	"html"
	"strings"
	"time"

	phpserialize "github.com/trim21/go-phpserialize"
)

//go:embed schema.sql
var schemaSQL string

// Schema returns the CREATE TABLE statements of the tables catalogd reads,
// for the prefix.
func Schema(prefix string) []string {
	var out []string
	for _, stmt := range strings.Split(strings.ReplaceAll(schemaSQL, "{prefix}", prefix), ";\n") {
		// Drop the comment lines; keep statements that remain.
		var lines []string
		for _, l := range strings.Split(stmt, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Shop accumulates the rows of a WordPress shop. Its zero value is not
// usable: call New.
type Shop struct {
	Prefix string
	// Now is when the shop's products were "saved": it decides which
	// sales WooCommerce's save made active in _price.
	Now time.Time

	tables  map[string]*table
	order   []string
	nextID  int64                         // posts
	nextTID int64                         // terms and term_taxonomy share numbering, as a fresh install does
	terms   map[string]map[string]termRef // taxonomy → slug → term
	prices  map[int64]string              // each product's stored _price, for grouped products

	extraSchema []string   // plugins' tables
	plugins     []string   // active_plugins, in activation order
	lang        *langState // the translation plugin, if any
}

type termRef struct {
	TermID, TTID int64
}

type table struct {
	cols    []string
	rows    [][]any
	flushed int
}

// New returns a shop with what a fresh WordPress + WooCommerce install
// holds: the options catalogd reads, the product_type and
// product_visibility terms, the default "uncategorized" product category
// (and the post category of the same slug), and the pa_framework attribute.
func New(prefix, home string) *Shop {
	s := &Shop{Prefix: prefix, Now: time.Now().UTC().Truncate(time.Second),
		tables: map[string]*table{}, nextID: 1, nextTID: 1, terms: map[string]map[string]termRef{}}
	s.SetOption("siteurl", home)
	s.SetOption("home", home)
	s.SetOption("blogname", "Script Shop")
	s.SetOption("blogdescription", "Just another WordPress site")
	s.SetOption("permalink_structure", "/%postname%/")
	s.SetOption("blog_public", "1") // the installer's default: search engines welcome
	s.SetOption("upload_path", "")
	s.SetOption("upload_url_path", "")
	s.SetOption("woocommerce_currency", "USD")
	s.SetOption("woocommerce_price_num_decimals", "2")
	s.SetOption("woocommerce_hide_out_of_stock_items", "no")
	s.SetOption("woocommerce_permalinks", Serialize(map[string]any{
		"product_base": "product", "category_base": "product-category", "tag_base": "product-tag",
		"attribute_base": "", "use_verbose_page_rules": false,
	}, "product_base", "category_base", "tag_base", "attribute_base", "use_verbose_page_rules"))

	s.Term("category", "Uncategorized", "uncategorized", 0) // WordPress's own, term 1
	for _, t := range []string{"simple", "grouped", "variable", "external"} {
		s.Term("product_type", t, t, 0)
	}
	for _, t := range []string{"exclude-from-search", "exclude-from-catalog", "featured", "outofstock",
		"rated-1", "rated-2", "rated-3", "rated-4", "rated-5"} {
		s.Term("product_visibility", t, t, 0)
	}
	unc := s.Term("product_cat", "Uncategorized", "uncategorized", 0)
	s.SetOption("default_product_cat", fmt.Sprint(unc.TermID))
	s.ActivatePlugin("woocommerce/woocommerce.php")

	s.Row("woocommerce_attribute_taxonomies",
		[]string{"attribute_name", "attribute_label", "attribute_type", "attribute_orderby", "attribute_public"},
		"framework", "Framework", "select", "menu_order", 0)
	for i, fw := range []string{"esx", "qbcore", "qbox", "standalone"} {
		name := map[string]string{"esx": "ESX", "qbcore": "QBCore", "qbox": "Qbox", "standalone": "Standalone"}[fw]
		ref := s.Term("pa_framework", name, fw, 0)
		s.TermMeta(ref.TermID, "order", fmt.Sprint(i))
	}
	return s
}

// Row adds a row to a table (unprefixed name) with the columns given.
func (s *Shop) Row(name string, cols []string, vals ...any) {
	t := s.tables[name]
	if t == nil {
		t = &table{cols: cols}
		s.tables[name] = t
		s.order = append(s.order, name)
	}
	if strings.Join(t.cols, ",") != strings.Join(cols, ",") {
		panic(fmt.Sprintf("wpfixture: table %s: columns %v, then %v", name, t.cols, cols))
	}
	t.rows = append(t.rows, vals)
}

// SetOption sets an option as update_option() does: the row is added, or
// its value replaced when the option exists and is not yet flushed.
func (s *Shop) SetOption(name, value string) {
	if t := s.tables["options"]; t != nil {
		for i, row := range t.rows {
			if row[0] == name {
				if i < t.flushed {
					panic("wpfixture: option " + name + " is already in the database; update it there")
				}
				row[1] = value
				return
			}
		}
	}
	s.Row("options", []string{"option_name", "option_value", "autoload"}, name, value, "yes")
}

// Term adds a term to a taxonomy. The name is stored HTML-escaped, as
// wp_insert_term() does (sanitize_term_field escapes "&" to "&amp;").
func (s *Shop) Term(taxonomy, name, slug string, parentTermID int64) termRef {
	id := s.nextTID
	s.nextTID++
	s.Row("terms", []string{"term_id", "name", "slug", "term_group"}, id, escapeTermName(name), slug, 0)
	s.Row("term_taxonomy", []string{"term_taxonomy_id", "term_id", "taxonomy", "description", "parent", "count"},
		id, id, taxonomy, "", parentTermID, 0)
	ref := termRef{TermID: id, TTID: id}
	if s.terms[taxonomy] == nil {
		s.terms[taxonomy] = map[string]termRef{}
	}
	s.terms[taxonomy][slug] = ref
	return ref
}

// escapeTermName is what WordPress stores for a typed term name: "&" and
// the other special characters as entities, an existing entity untouched.
func escapeTermName(name string) string {
	return html.EscapeString(html.UnescapeString(name))
}

// TermMeta adds a term meta row.
func (s *Shop) TermMeta(termID int64, key, value string) {
	s.Row("termmeta", []string{"term_id", "meta_key", "meta_value"}, termID, key, value)
}

// TermRef returns a term added before; it panics when there is none, which
// in a fixture is a bug in the test.
func (s *Shop) TermRef(taxonomy, slug string) termRef {
	ref, ok := s.terms[taxonomy][slug]
	if !ok {
		panic(fmt.Sprintf("wpfixture: no %s term %q", taxonomy, slug))
	}
	return ref
}

// Relate relates a post to a term.
func (s *Shop) Relate(postID int64, ref termRef) {
	s.Row("term_relationships", []string{"object_id", "term_taxonomy_id", "term_order"}, postID, ref.TTID, 0)
}

// PostMeta adds a post meta row.
func (s *Shop) PostMeta(postID int64, key, value string) {
	s.Row("postmeta", []string{"post_id", "meta_key", "meta_value"}, postID, key, value)
}

// Serialize writes a PHP-serialized array with the keys in the given order
// (PHP arrays are ordered; Go maps are not).
func Serialize(m map[string]any, keys ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a:%d:{", len(keys))
	for _, k := range keys {
		kb, _ := phpserialize.Marshal(k)
		vb, err := phpserialize.Marshal(m[k])
		if err != nil {
			panic(err)
		}
		b.Write(kb)
		b.Write(vb)
	}
	b.WriteString("}")
	return b.String()
}

// Serialized is PHP-serialized data kept as is when it is the value of a
// Serialize map: a nested array whose key order matters.
type Serialized string

// MarshalPHP implements phpserialize.Marshaler.
func (s Serialized) MarshalPHP() ([]byte, error) { return []byte(s), nil }

// SkipPostIDs makes the next post's ID at least next, as a shop that has
// been saving posts for years has (six-digit IDs on a large shop): the
// purge tags and headers that name IDs are measured at their real size.
func (s *Shop) SkipPostIDs(next int64) {
	s.nextID = max(s.nextID, next)
}

// IndexPostModified gives the shop's posts table the index on
// post_modified_gmt that an owner may add for polling at size
// (deploy/mysql/post-modified-index.sql, which its own test runs):
// WordPress creates no such index.
func (s *Shop) IndexPostModified() {
	s.extraSchema = append(s.extraSchema,
		"ALTER TABLE {prefix}posts ADD INDEX catalogd_post_modified_gmt (post_modified_gmt)")
}
