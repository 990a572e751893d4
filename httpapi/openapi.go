package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"catalogd/api"
)

// The OpenAPI document is generated from the route table and the Go types
// the handlers encode: there is no second, hand-kept copy. `go generate`
// writes the default document to openapi.json (checked in, for readers and
// tools); a test fails when it drifts from what the server generates.
//
//go:generate go run ./internal/genopenapi openapi.json

// param describes one parameter of an operation.
type param struct {
	name, in, desc string
	required       bool
	schema         map[string]any
	example        any // a value the demo shop answers with 200
}

// listParams and slugParam mirror what api.ParseListQuery and
// api.CanonicalSlug accept, from the same constants.
var (
	listParams = []param{
		{name: "page", in: "query", desc: "One-based page number; a page beyond total_pages is a 400 naming the last page.",
			schema: map[string]any{"type": "integer", "minimum": 1, "default": 1}, example: 1},
		{name: "per_page", in: "query", desc: "Products per page; more than the maximum is rejected, not clamped.",
			schema: map[string]any{"type": "integer", "minimum": 1, "maximum": api.MaxPerPage, "default": api.DefaultPerPage}, example: api.MaxPerPage},
		{name: "category", in: "query", desc: "A category slug as the categories endpoint lists it, or percent-decoded to UTF-8; includes its descendants.",
			schema: map[string]any{"type": "string", "minLength": 1, "maxLength": api.MaxSlugLength}, example: "police"},
		{name: "framework", in: "query", desc: "Only products declaring this pa_framework term; combines with category by AND.",
			schema: map[string]any{"type": "string", "enum": api.Frameworks}, example: "qbox"},
		{name: "search", in: "query", desc: "The storefront's product search: words (spaces, commas and plus signs " +
			"between them; \"quoted phrases\"; -word to exclude), each found in the name, short description or " +
			"description, case- and accent-insensitive; stopwords and single letters are skipped as WordPress skips " +
			"them. Searches the products the shop's search shows (\"Search results only\" ones too, \"Shop only\" ones " +
			"not). Empty is no filter.",
			schema: map[string]any{"type": "string", "maxLength": api.MaxSearchLength}, example: "police"},
		{name: "orderby", in: "query", desc: "The order: id (post ID, the default), relevance (the search's, only " +
			"with search), date, price (lowest price ascending, highest descending), popularity (sales), rating, " +
			"title or menu_order (the shop's custom order, then title); ties as the storefront breaks them.",
			schema: map[string]any{"type": "string", "enum": api.OrderBys, "default": "id"}, example: "price"},
		{name: "order", in: "query", desc: "asc or desc; without it, date sorts newest first and the rest ascending. " +
			"relevance, popularity and rating sort descending only: asc is a 400.",
			schema: map[string]any{"type": "string", "enum": api.Orders}, example: "desc"},
		{name: "min_price", in: "query", desc: "Lowest price, a decimal in the shop currency: keeps products whose " +
			"price range reaches it, as the shop's price filter does; products without a price are left out. " +
			"Not above max_price.",
			schema: map[string]any{"type": "string", "pattern": api.PricePattern}, example: "5"},
		{name: "max_price", in: "query", desc: "Highest price, a decimal in the shop currency: keeps products whose " +
			"price range starts at or below it; products without a price are left out.",
			schema: map[string]any{"type": "string", "pattern": api.PricePattern}, example: "20"},
		{name: "in_stock", in: "query", desc: "Only products whose in_stock is this value.",
			schema: map[string]any{"type": "boolean"}, example: true},
		{name: "on_sale", in: "query", desc: "Only products whose on_sale is this value, at the time of the answer.",
			schema: map[string]any{"type": "boolean"}, example: true},
		{name: "facets", in: "query", desc: "true adds facets to the answer: counts per category, framework, stock " +
			"and sale, and the price range, over all pages of the filtered list.",
			schema: map[string]any{"type": "boolean", "default": false}, example: true},
	}
	slugParam = param{name: "slug", in: "path", required: true, desc: "The product's English slug as the product list shows it " +
		"(WordPress's stored form, ^([a-z0-9_-]|%[0-9a-f]{2})+$: other characters as lowercase percent-encoded UTF-8), " +
		"or that slug percent-decoded to UTF-8; uppercase hex digits are accepted too.",
		schema: map[string]any{"type": "string", "pattern": api.SlugPattern, "maxLength": api.MaxSlugLength}, example: "dispatch-system"}
)

// paramNames are the names of params, in their order.
func paramNames(params []param) []string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	return names
}

// schema variants of the catalog's types: the list's Product has no
// description; the single product always has one.
type variant struct {
	name    string
	typ     reflect.Type
	omit    []string
	require []string
}

var schemas = []variant{
	{name: "CatalogIndex", typ: reflect.TypeFor[api.Index]()},
	{name: "Endpoints", typ: reflect.TypeFor[api.Endpoints]()},
	{name: "CategoryList", typ: reflect.TypeFor[api.CategoryList]()},
	{name: "Category", typ: reflect.TypeFor[api.Category]()},
	{name: "ProductList", typ: reflect.TypeFor[api.ProductList]()},
	{name: "Facets", typ: reflect.TypeFor[api.Facets]()},
	{name: "StockFacet", typ: reflect.TypeFor[api.StockFacet]()},
	{name: "PriceFacet", typ: reflect.TypeFor[api.PriceFacet]()},
	{name: "ProductListItem", typ: reflect.TypeFor[api.Product](), omit: []string{"description", "tags", "attributes"}},
	{name: "Product", typ: reflect.TypeFor[api.Product](), require: []string{"description", "tags", "attributes"}},
	{name: "PriceRange", typ: reflect.TypeFor[api.PriceRange]()},
	{name: "Attribute", typ: reflect.TypeFor[api.Attribute]()},
	{name: "AttributeValue", typ: reflect.TypeFor[api.AttributeValue]()},
	{name: "Error", typ: reflect.TypeFor[api.Error]()},
	{name: "ErrorData", typ: reflect.TypeFor[api.ErrorData]()},
}

// refName names the schema a Go type is referred to by, inside another.
func refName(t reflect.Type, parent string) string {
	switch t {
	case reflect.TypeFor[api.Product]():
		if parent == "ProductList" {
			return "ProductListItem"
		}
		return "Product"
	case reflect.TypeFor[api.Endpoints]():
		return "Endpoints"
	case reflect.TypeFor[api.Category]():
		return "Category"
	case reflect.TypeFor[api.ErrorData]():
		return "ErrorData"
	case reflect.TypeFor[api.Facets]():
		return "Facets"
	case reflect.TypeFor[api.StockFacet]():
		return "StockFacet"
	case reflect.TypeFor[api.PriceFacet]():
		return "PriceFacet"
	case reflect.TypeFor[api.PriceRange]():
		return "PriceRange"
	case reflect.TypeFor[api.Attribute]():
		return "Attribute"
	case reflect.TypeFor[api.AttributeValue]():
		return "AttributeValue"
	}
	return ""
}

// fieldDocs describe fields; the structure comes from the types.
var fieldDocs = map[string]string{
	"Product.slug":          "Stable identifier; the last segment of url. Characters outside a-z, 0-9 and - are lowercase percent-encoded UTF-8, as WordPress stores them.",
	"Category.slug":         "The category filter's value; encoded as Product.slug.",
	"Product.url":           "Canonical English URL of the product page.",
	"Product.price":         "Decimal string in currency; null when no price is set.",
	"Product.regular_price": "Price before any active sale; null when none is set.",
	"Product.currency":      "ISO 4217 code of the shop base currency.",
	"Product.in_stock":      "Stock state; check it as well as purchasable.",
	"Product.purchasable":   "Whether the shop accepts the product into a cart.",
	"Product.categories":    "Category slugs, matching the categories endpoint.",
	"Product.frameworks":    "pa_framework terms; an empty array means none declared, not standalone.",
	"Product.image":         "Full-size featured image URL, or null.",
	"Product.sku": "The SKU the product page shows (WooCommerce's get_sku(), where SKUs are enabled), as stored; " +
		"null when the product has none, and for a password-protected product.",
	"Product.price_range": "A variable or grouped product's lowest and highest price, as its price shows them " +
		"(\"min – max\"): a variable product's over the variations a visitor can choose, each at its price now " +
		"(its sale price while on sale); a grouped product's over its published children. Null where the shop shows " +
		"one price: simple and external products, and prices that do not differ.",
	"Product.tags": "Slugs of the product's tags (product_tag), by name, as the product page lists them; " +
		"only in the single-product response.",
	"Product.attributes": "The attributes the product page lists under \"Additional information\", in their order: " +
		"the visible ones of the product's attributes, a global attribute while it is registered; [] for none and for a " +
		"password-protected product. Only in the single-product response.",
	"Attribute.name": "The attribute's key: a global attribute's taxonomy (pa_framework), or a local attribute's " +
		"sanitized name.",
	"Attribute.label": "The row's label: a global attribute's registered name, a local attribute's name as typed.",
	"Attribute.values": "A global attribute's terms on the product, in the attribute's term order; a local " +
		"attribute's values as typed.",
	"AttributeValue.slug":           "A term's slug; a local attribute's value as typed (what a variation stores for it).",
	"AttributeValue.name":           "The value as the page shows it, plain text.",
	"PriceRange.min":                "The lowest price, a decimal string as Product.price spells it.",
	"PriceRange.max":                "The highest price, a decimal string as Product.price spells it.",
	"Product.summary":               "Plain text of the short description; cut to 300 characters in the list.",
	"Product.description":           "Plain text of the full description.",
	"Category.count":                "Catalog-visible products in the category and its descendants.",
	"Category.parent":               "The parent category's slug, or null at the top.",
	"Category.url":                  "Canonical archive page.",
	"Index.product_count":           "Catalog-visible products: the unfiltered list's total.",
	"Index.published_product_count": "Every published product, including those hidden from the catalog.",
	"Index.endpoints":               "Links to every operation.",
	"Index.sitemap": "The sitemap index the shop serves: Yoast SEO's or Rank Math's /sitemap_index.xml, else WordPress's " +
		"/wp-sitemap.xml; absent when it serves none (search engines discouraged).",
	"Error.code":       "Stable machine identifier; branch on it, not on message.",
	"ErrorData.hint":   "What to do instead, whenever a next step exists.",
	"ErrorData.params": "Per-parameter messages, on a 400.",
	"ProductList.facets": "Only with facets=true: counts over every product the filters select, all pages together; " +
		"each facet ignores its own filter, as the shop's filter widgets do.",
	"Facets.categories": "Products per category slug, a category counting its descendants' (ignores category); " +
		"categories with none are left out.",
	"Facets.frameworks": "Products per pa_framework term (ignores framework); frameworks with none are left out.",
	"Facets.stock":      "Products in stock and out of stock (ignores in_stock).",
	"Facets.on_sale":    "Products on sale (ignores on_sale).",
	"Facets.price":      "The lowest and highest price (ignores min_price and max_price); null when no product has a price.",
	"PriceFacet.min":    "The lowest price, a decimal string as Product.price spells it.",
	"PriceFacet.max":    "The highest price, a decimal string as Product.price spells it.",
}

var uriFields = map[string]bool{"url": true, "image": true, "developers": true, "openapi": true,
	"llms_txt": true, "sitemap": true, "catalog": true, "categories": true, "products": true}

// schemaOf builds the JSON Schema of a struct type.
func schemaOf(v variant) map[string]any {
	props := map[string]any{}
	var required []string
	for i := 0; i < v.typ.NumField(); i++ {
		f := v.typ.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || name == "" || !f.IsExported() || slices.Contains(v.omit, name) {
			continue
		}
		ft := f.Type
		if strings.Contains(opts, "omitempty") && ft.Kind() == reflect.Pointer &&
			(ft.Elem().Kind() == reflect.Struct || ft.Elem().Kind() == reflect.Slice) {
			ft = ft.Elem() // left out rather than null
		}
		s := typeSchema(ft, v.name)
		if uriFields[name] {
			addFormat(s, "uri")
		}
		if d := fieldDocs[v.typ.Name()+"."+name]; d != "" {
			s["description"] = d
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") || slices.Contains(v.require, name) {
			required = append(required, name)
		}
	}
	if v.name == "Endpoints" {
		props["product"] = map[string]any{"type": "string",
			"description": "URI template of the single-product operation: replace {slug}."}
	}
	return map[string]any{"type": "object", "properties": props, "required": required,
		"additionalProperties": false}
}

// addFormat marks a string schema (or a nullable one) with a format.
func addFormat(s map[string]any, format string) {
	switch t := s["type"].(type) {
	case string:
		if t == "string" {
			s["format"] = format
		}
	case []any:
		if t[0] == "string" {
			s["format"] = format
		}
	}
}

func typeSchema(t reflect.Type, parent string) map[string]any {
	if t.Kind() == reflect.Pointer {
		s := typeSchema(t.Elem(), parent)
		if typ, ok := s["type"].(string); ok {
			s["type"] = []any{typ, "null"}
		} else if ref, ok := s["$ref"]; ok {
			s = map[string]any{"anyOf": []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}}
		}
		return s
	}
	if name := refName(t, parent); name != "" {
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem(), parent)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), parent)}
	}
	panic("openapi: no schema for " + t.String())
}

// rateHeaders are on every response.
var rateHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
	"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}

// cacheHeaders describe the headers caches act on, for the components.
var cacheHeaders = map[string]any{
	"Cache-Control": map[string]any{"required": true,
		"description": "Browser (max-age) and shared-cache (s-maxage) lifetimes, with stale-while-revalidate and " +
			"stale-if-error; each shrinks as the next sale start or end among the products shown nears, so that no " +
			"cache keeps the response, stale or not, past the instant its price changes. no-store on a response past it, " +
			"and on a stale copy served while the database fails (X-Cache: STALE).",
		"schema": map[string]any{"type": "string",
			"pattern": `^(no-store|public, max-age=[0-9]+, s-maxage=[0-9]+(, stale-while-revalidate=[0-9]+)?(, stale-if-error=[0-9]+)?)$`}},
	"Last-Modified": map[string]any{"required": true,
		"description": "The newest change of what the response shows: its products' and their variations' saves, " +
			"a sale date passed, and when catalogd last saw the shop's terms or settings change (WordPress keeps no " +
			"time for those). Never in the future. Send it back in If-Modified-Since; If-None-Match wins when both are sent.",
		"schema": map[string]any{"type": "string",
			"pattern": `^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$`}},
	"Cache-Tag": map[string]any{"required": false,
		"description": "Purge tags (Cloudflare), comma-separated, sent instead of Surrogate-Key when catalogd is set up " +
			"for Cloudflare (--tag-header): the kind ({ns}-index, {ns}-categories, {ns}-list, {ns}-product or {ns}-docs) " +
			"and, on a product or list page, {ns}-product-{post ID} for every product shown; when those would pass 2 KB, " +
			"{ns}-overflow instead of them. A list page that searches, sorts by other than ID, filters by price, stock or " +
			"sale, or asks for facets names {ns}-list and {ns}-query instead of its products: any product's change purges it.",
		"schema": map[string]any{"type": "string", "pattern": `^[^,\s]+(,[^,\s]+)*$`}},
	"Surrogate-Key": map[string]any{"required": false,
		"description": "The purge tags of Cache-Tag, space-separated (Fastly, Varnish xkey); the default tag header.",
		"schema":      map[string]any{"type": "string", "pattern": `^[^,\s]+( [^,\s]+)*$`}},
}

// OpenAPI returns the API's OpenAPI 3.1 document for a server at
// serverURL (the base URL, {site}/wp-json/{ns}/v1), generated from the route
// table and the types the handlers encode.
func OpenAPI(ns, serverURL string) []byte {
	s := &server{ns: ns, base: Base(ns)}
	headerRefs := map[string]any{}
	components := map[string]any{}
	for _, h := range rateHeaders {
		desc := map[string]string{
			"Limit":     "Requests allowed per 60-second window for the client's IP (advisory).",
			"Remaining": "Requests left in the current window.",
			"Reset":     "Seconds until the window resets.",
		}[h[strings.LastIndex(h, "-")+1:]]
		components[h] = map[string]any{"description": desc, "schema": map[string]any{"type": "integer", "minimum": 0}}
		headerRefs[h] = map[string]any{"$ref": "#/components/headers/" + h}
	}
	for name, h := range cacheHeaders {
		components[name] = h
	}
	withHeaders := func(extra map[string]any) map[string]any {
		h := map[string]any{}
		for k, v := range headerRefs {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	jsonBody := func(ref string) map[string]any {
		return map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + ref}}}
	}
	errResp := func(desc string, extra map[string]any) map[string]any {
		return map[string]any{"description": desc, "headers": withHeaders(extra), "content": jsonBody("Error")}
	}
	site := serverURL // the site serving the API: the server URL without the REST base
	if i := strings.Index(site, "/wp-json/"); i >= 0 {
		site = site[:i]
	}
	examples := docExamples(ns, site, strings.TrimPrefix(serverURL, site))
	// withExample is a response whose JSON body shows the example, if any.
	withExample := func(resp map[string]any, key string) map[string]any {
		if ex, ok := examples[key]; ok {
			resp["content"].(map[string]any)["application/json"].(map[string]any)["example"] = ex
		}
		return resp
	}
	// Link is on every response (rel="service-desc"); the product list
	// adds its paging relations beside it.
	// Required, as on every answer catalogd gives (the validator checks a
	// header's value only when it is required).
	components["Link"] = map[string]any{"required": true, "schema": map[string]any{"type": "string", "pattern": `<[^>]+>;\s*rel="`},
		"description": "RFC 8288 links: always <{site}/openapi.json>; rel=\"service-desc\". The product list adds absolute links to its " +
			"first, prev, next and last pages (prev not on page 1, next not on the last page, none when total is 0), as WordPress's REST " +
			"collections do; their query is canonical: the list's parameters the request gave, in alphabetical order, page always."}
	headerRefs["Link"] = map[string]any{"$ref": "#/components/headers/Link"}
	for h, desc := range map[string]string{
		"X-WP-Total":      "The list's total, as in the body: the products matching the filters on every page.",
		"X-WP-TotalPages": "The list's total_pages, as in the body; 0 when total is 0.",
	} {
		components[h] = map[string]any{"description": desc, "required": true, "schema": map[string]any{"type": "integer", "minimum": 0}}
	}
	retryAfter := map[string]any{"description": "Seconds to wait before retrying.", "schema": map[string]any{"type": "integer", "minimum": 0}}

	paths := map[string]any{}
	for _, rt := range s.routes() {
		params := []any{}
		for _, p := range rt.params {
			params = append(params, map[string]any{"name": p.name, "in": p.in, "required": p.required,
				"description": p.desc, "schema": p.schema, "example": p.example})
		}
		validators := map[string]any{
			"ETag":          map[string]any{"description": "Strong validator; send it back in If-None-Match.", "schema": map[string]any{"type": "string"}},
			"Cache-Control": map[string]any{"$ref": "#/components/headers/Cache-Control"},
			"Last-Modified": map[string]any{"$ref": "#/components/headers/Last-Modified"},
		}
		ok := map[string]any{
			"Cache-Tag":     map[string]any{"$ref": "#/components/headers/Cache-Tag"},
			"Surrogate-Key": map[string]any{"$ref": "#/components/headers/Surrogate-Key"},
		}
		for k, v := range validators {
			ok[k] = v
		}
		for _, h := range rt.headers {
			ok[h] = map[string]any{"$ref": "#/components/headers/" + h}
		}
		responses := map[string]any{
			"200": withExample(map[string]any{"description": "OK", "headers": withHeaders(ok), "content": jsonBody(rt.body)}, rt.body),
			"304": map[string]any{"description": "Not modified: the If-None-Match ETag is current or, without If-None-Match, " +
				"nothing changed since If-Modified-Since.", "headers": withHeaders(validators)},
			"405": errResp("Method not allowed (shop_method_not_allowed): the API is read-only.", map[string]any{
				"Allow": map[string]any{"description": "The methods served.", "schema": map[string]any{"type": "string"}}}),
			"429": errResp("Too many requests (shop_rate_limited), only when enforcement is on.", map[string]any{"Retry-After": retryAfter}),
			"500": errResp("Internal error (shop_internal_error); never with internals.", nil),
			"503": errResp("The database is unreachable and no cached copy exists (shop_unavailable).", map[string]any{"Retry-After": retryAfter}),
		}
		for status, desc := range rt.errors {
			responses[status] = withExample(errResp(desc, nil), rt.name+" "+status)
		}
		paths[rt.path] = map[string]any{"get": map[string]any{
			"operationId": rt.name, "tags": []string{rt.tag}, "summary": rt.summary, "description": rt.desc,
			"parameters": params, "responses": responses,
		}}
	}

	schemaDefs := map[string]any{}
	for _, v := range schemas {
		schemaDefs[v.name] = schemaOf(v)
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Product catalog", "version": "1.1.0",
			"description": "Read-only catalog of the shop's game-server scripts: products, prices in the shop base currency, " +
				"stock, categories and framework compatibility. Anonymous GETs only: no operation needs authentication, " +
				"a key or a cookie. English slugs only. " +
				"About one request per second; prefer a larger per_page over more pages.",
			// The catalog is the shop's: its owner answers for it, and its
			// content is theirs, not openly licensed.
			"contact": map[string]any{"name": "The shop", "url": site + "/"},
			"license": map[string]any{"name": "Proprietary: the shop's content, all rights reserved", "url": site + "/"}},
		"servers": []any{map[string]any{"url": serverURL, "description": "The shop's REST API base"}},
		// Every operation is anonymous: an empty requirement, stated.
		"security": []any{},
		"tags": []any{
			map[string]any{"name": tagCatalog, "description": "The shop and its categories."},
			map[string]any{"name": tagProducts, "description": "The catalog's products, paged and filtered, and one by its slug."},
		},
		"paths":      paths,
		"components": map[string]any{"schemas": schemaDefs, "headers": components},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		panic(err) // maps of plain values always encode
	}
	return buf.Bytes()
}

// serveOpenAPI serves the document at both of its addresses, byte-identical.
// It names the site's URL, which a restart may change (--site-url, an
// upgrade): tagged with the documents' kind, the start-up purge by kind
// reaches its copies at the edge.
func (s *server) serveOpenAPI(w http.ResponseWriter, r *http.Request) error {
	describe(r, 0, time.Time{}, time.Time{}, []string{s.tags.kind("docs")})
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(s.openapi)
	return err
}

// DocServerURL is the example server of the checked-in document; a running
// catalogd names its own site.
const DocServerURL = "https://shop.example/wp-json/shop/v1"
