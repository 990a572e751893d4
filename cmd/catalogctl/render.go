package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"catalogd/api"
)

// width is the terminal width the text output fits.
const width = 80

// writeJSON prints the API's JSON as it came, indented for reading; keys,
// their order and fields catalogctl does not know all stay.
func writeJSON(w io.Writer, body []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// writeAllJSON prints every product and the total as one JSON object,
// and the facets when the list sent them.
func writeAllJSON(w io.Writer, res *allResult) error {
	b, err := json.MarshalIndent(struct {
		Products []json.RawMessage `json:"products"`
		Total    int               `json:"total"`
		Facets   json.RawMessage   `json:"facets,omitempty"`
	}{res.raw, res.total, res.rawFacets}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func renderIndex(w io.Writer, idx *api.Index) error {
	var b strings.Builder
	b.WriteString(oneLine(idx.Name) + "\n")
	if idx.Description != "" {
		b.WriteString(wrap(idx.Description, width))
	}
	b.WriteString("\n")
	published := ""
	if idx.PublishedProductCount > 0 {
		published = fmt.Sprintf(", %d published", idx.PublishedProductCount)
	}
	fields := [][2]string{
		{"Currency", idx.Currency},
		{"Products", fmt.Sprintf("%d in the catalog%s", idx.ProductCount, published)},
		{"Categories", fmt.Sprint(idx.CategoryCount)},
	}
	writeFields(&b, fields)
	b.WriteString("\nEndpoints:\n")
	writeFields(&b, [][2]string{
		{"  catalog", idx.Endpoints.Catalog},
		{"  categories", idx.Endpoints.Categories},
		{"  products", idx.Endpoints.Products},
		{"  product", idx.Endpoints.Product},
	})
	var docs [][2]string
	for _, d := range [][2]string{{"OpenAPI", idx.OpenAPI}, {"llms.txt", idx.LLMsTxt},
		{"Sitemap", idx.Sitemap}, {"Developers", idx.Developers}} {
		if d[1] != "" {
			docs = append(docs, d)
		}
	}
	if len(docs) > 0 {
		b.WriteString("\n")
		writeFields(&b, docs)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFields writes "label:  value" lines with the values aligned.
func writeFields(b *strings.Builder, fields [][2]string) {
	n := 0
	for _, f := range fields {
		n = max(n, utf8.RuneCountInString(f[0]))
	}
	for _, f := range fields {
		fmt.Fprintf(b, "%s:%s %s\n", f[0], strings.Repeat(" ", n-utf8.RuneCountInString(f[0])+1), f[1])
	}
}

// column of a table. Columns shrink in the table's shrink order when it
// is wider than the terminal, each down to a floor, cut with "…".
type column struct {
	title string
	cells []string
	width int
	right bool // cells aligned right, uncut (counts); the title stays left
}

// shrink is a step of a table's shrink order: column col down to floor
// runes.
type shrink struct{ col, floor int }

// shrinkOrder is the product table's: an over-long slug goes first (the
// slug is the cell a reader copies, so it keeps 25 runes, enough for
// nearly all), then the frameworks, which the name outranks for a reader,
// then the name, then all of them further.
var shrinkOrder = []shrink{
	{colSlug, 25}, {colFrameworks, 11}, {colName, 14},
	{colFrameworks, 8}, {colName, 10}, {colSlug, 14}, {colName, 4}, {colFrameworks, 4},
}

const (
	colSlug = iota
	colName
	colPrice
	colStock
	colBuy
	colFrameworks
	numCols
)

// gap is the space between columns.
const gap = "  "

// renderTable prints the products as a table that fits width columns.
func renderTable(w io.Writer, products []api.Product) error {
	cols := columns("SLUG", "NAME", "PRICE", "STOCK", "BUY", "FRAMEWORKS")
	for _, p := range products {
		cells := [numCols]string{
			colSlug:       oneLine(p.Slug),
			colName:       oneLine(p.Name),
			colPrice:      price(p.Price, p.Currency),
			colStock:      stock(p.InStock),
			colBuy:        yesNo(p.Purchasable),
			colFrameworks: oneLine(strings.Join(p.Frameworks, ",")),
		}
		addRow(cols, cells[:]...)
	}
	var b strings.Builder
	writeTable(&b, cols, shrinkOrder)
	_, err := io.WriteString(w, b.String())
	return err
}

// columns are a table's columns, titled, without rows yet.
func columns(titles ...string) []column {
	cols := make([]column, len(titles))
	for i, t := range titles {
		cols[i] = column{title: t, width: utf8.RuneCountInString(t)}
	}
	return cols
}

// addRow adds a row, a cell to each column.
func addRow(cols []column, cells ...string) {
	for i, c := range cells {
		cols[i].cells = append(cols[i].cells, c)
		cols[i].width = max(cols[i].width, utf8.RuneCountInString(c))
	}
}

// writeTable writes the columns as a table that fits width columns,
// shrinking them in order when it is wider; widths count runes, not
// bytes, so "Café" and "東京" line up.
func writeTable(b *strings.Builder, cols []column, order []shrink) {
	total := len(gap) * (len(cols) - 1)
	for _, c := range cols {
		total += c.width
	}
	for _, s := range order {
		if total <= width {
			break
		}
		c := &cols[s.col]
		cut := min(total-width, max(c.width-s.floor, 0))
		c.width -= cut
		total -= cut
	}
	line := func(title bool, row int) {
		var l strings.Builder
		for i, c := range cols {
			if i > 0 {
				l.WriteString(gap)
			}
			switch {
			case title:
				l.WriteString(pad(fit(c.title, c.width), c.width))
			case c.right:
				fmt.Fprintf(&l, "%*s", c.width, c.cells[row])
			default:
				l.WriteString(pad(fit(c.cells[row], c.width), c.width))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(true, 0)
	for row := range len(cols[0].cells) {
		line(false, row)
	}
}

// pagingLine is the line under one page of the table.
func pagingLine(l *api.ProductList) string {
	if l.Total == 0 {
		return "no products match"
	}
	return fmt.Sprintf("page %d of %d, %s", l.Page, l.TotalPages, plural(l.Total, "product"))
}

// countLine is the line under the table of --all.
func countLine(total int) string {
	if total == 0 {
		return "no products match"
	}
	return plural(total, "product")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func renderProduct(w io.Writer, p *api.Product) error {
	var b strings.Builder
	b.WriteString(oneLine(p.Name) + "\n\n")
	onSale := yesNo(p.OnSale)
	regular := "—"
	if p.RegularPrice != nil {
		regular = price(p.RegularPrice, p.Currency)
	}
	image := "none"
	if p.Image != nil {
		image = *p.Image
	}
	categories := "none"
	if len(p.Categories) > 0 {
		categories = strings.Join(p.Categories, ", ")
	}
	// An empty list means the shop declares none, which is not the same
	// as "standalone".
	frameworks := "none declared"
	if len(p.Frameworks) > 0 {
		frameworks = strings.Join(p.Frameworks, ", ")
	}
	priceText := price(p.Price, p.Currency)
	if p.Price == nil {
		priceText = "— (no price set)"
	} else if p.OnSale {
		priceText += " (on sale)"
	}
	sku := "—"
	if p.SKU != nil {
		sku = oneLine(*p.SKU)
	}
	// No range: the shop shows one price.
	priceRange := "—"
	if r := p.PriceRange; r != nil {
		priceRange = r.Min + " – " + r.Max + " " + p.Currency
	}
	tags := "none"
	if p.Tags != nil && len(*p.Tags) > 0 {
		tags = strings.Join(*p.Tags, ", ")
	}
	// The "Additional information" rows, each "Label: value, value".
	attributes := "none"
	if p.Attributes != nil && len(*p.Attributes) > 0 {
		rows := make([]string, 0, len(*p.Attributes))
		for _, a := range *p.Attributes {
			names := make([]string, 0, len(a.Values))
			for _, v := range a.Values {
				names = append(names, oneLine(v.Name))
			}
			rows = append(rows, oneLine(a.Label)+": "+strings.Join(names, ", "))
		}
		attributes = strings.Join(rows, "; ")
	}
	writeFields(&b, [][2]string{
		{"Slug", p.Slug},
		{"URL", p.URL},
		{"SKU", sku},
		{"Price", priceText},
		{"Regular price", regular},
		{"Price range", priceRange},
		{"On sale", onSale},
		{"Stock", stock(p.InStock)},
		{"Purchasable", yesNo(p.Purchasable)},
		{"Categories", categories},
		{"Tags", tags},
		{"Frameworks", frameworks},
		{"Attributes", attributes},
		{"Image", image},
	})
	if strings.TrimSpace(p.Summary) != "" {
		b.WriteString("\nSummary:\n")
		b.WriteString(wrap(p.Summary, width))
	}
	if p.Description != nil && strings.TrimSpace(*p.Description) != "" {
		b.WriteString("\nDescription:\n")
		b.WriteString(wrap(*p.Description, width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func price(p *string, currency string) string {
	if p == nil {
		return "—"
	}
	return *p + " " + currency
}

func stock(in bool) string {
	if in {
		return "in stock"
	}
	return "out of stock"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// oneLine keeps a table cell or heading on one line: the API's text is
// plain, but a name may still hold a tab or a line break.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// fit cuts s to n runes, the last one "…" when anything was cut.
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0))
}

// wrap fills text to lines of at most n runes at spaces, keeping its line
// breaks: the API's description has one line per paragraph or list item
// and an empty line between paragraphs. A word longer than n (a URL) gets
// a line of its own rather than being broken.
func wrap(text string, n int) string {
	var b strings.Builder
	for _, para := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		col := 0
		for _, word := range strings.Fields(para) {
			wl := utf8.RuneCountInString(word)
			switch {
			case col == 0:
			case col+1+wl > n:
				b.WriteString("\n")
				col = 0
			default:
				b.WriteString(" ")
				col++
			}
			b.WriteString(word)
			col += wl
		}
		b.WriteString("\n")
	}
	return b.String()
}
