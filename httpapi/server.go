// Package httpapi serves the catalog over HTTP: the routes of the contract
// under /wp-json/{ns}/v1, parameter validation, the JSON error shape, and
// the response headers. Handlers return errors; one adapter turns them into
// the contract's Error body and status.
package httpapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"catalogd/api"
	"catalogd/catalog"
)

// Deps is what the server needs.
type Deps struct {
	Catalog   catalog.Service
	Namespace string // "shop" by default
	// SiteURL is the site origin the Link header points under; empty
	// gives site-relative links.
	SiteURL string
	// RateLimit is the advisory requests per minute per client IP the
	// rate-limit headers describe; 60 by default.
	RateLimit int
	// EnforceRateLimit answers 429 past the limit; off by default, as the
	// edge enforces.
	EnforceRateLimit bool
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// Cache is the origin cache; nil computes every response from the
	// catalog's snapshot (still with ETag, 304 and gzip).
	Cache   *Cache
	Metrics *Metrics // nil: none
	Logger  *slog.Logger
	// AccessLog logs every request at info level: to AccessLines when
	// set, else to AccessLogger (nil: Logger). Either may buffer: the
	// lines are many and not urgent. AccessLines writes the lines the
	// slog handlers would, for a fraction of the cost.
	AccessLog    bool
	AccessLines  *AccessLog
	AccessLogger *slog.Logger
	// DevelopersURL is the developer page the API catalog links, if any.
	DevelopersURL string
	// Freshness is what downstream caches may do with a 200; nil:
	// DefaultFreshness. All four lifetimes 0 is meaningful (every cache
	// must ask again), hence the pointer.
	Freshness *Freshness
	// TagHeader is the purge tag header each cacheable response carries:
	// Surrogate-Key by default (Fastly, Varnish xkey), Cache-Tag for
	// Cloudflare, or both.
	TagHeader TagHeader
}

type server struct {
	paths      []pathTemplate // the operations' paths, in routes() order
	link       []string       // the Link header's value
	openapi    []byte         // the OpenAPI document served
	developers string
	cat        catalog.Service
	ns         string
	base       string // /wp-json/{ns}/v1
	site       string
	shape      Shape // what, beside the snapshot, makes the answers (SnapshotHeader)
	tags       tagger
	limits     *rateLimiter
	clients    clientIPs
	metrics    *Metrics
	log        *slog.Logger
	unready    unreadyLog // the 503s' warnings, once per cause
	probes     probeLog   // the health probes' access-log lines, on a change of status
	accessLog  bool
	alog       *slog.Logger // the access log's, when lines is nil
	lines      *AccessLog
}

// route is one operation of the contract; the OpenAPI document is
// generated from this table.
type route struct {
	name    string // the operationId
	path    string // under the base path
	handler func(w http.ResponseWriter, r *http.Request) error
	summary string
	desc    string // the operation's description in the document
	tag     string // its group in the document: tagCatalog or tagProducts
	params  []param
	body    string            // schema of the 200 body
	errors  map[string]string // client-error statuses it answers besides 405 and 429
	headers []string          // headers of its 200 besides the common ones, components of the document
}

// routes is every operation the API serves, in one table.
func (s *server) routes() []route {
	ns := s.ns
	return []route{
		{name: "getCatalogIndex", path: "/catalog", handler: s.getCatalogIndex, body: "CatalogIndex", tag: tagCatalog,
			summary: "The catalog: shop name, currency, counts and links to every operation.",
			desc: "The entry point: the shop's name, description and currency, how many products the catalog shows " +
				"and how many are published (some are reachable by slug only), the category count, and the URLs of every " +
				"operation and companion document (OpenAPI, llms.txt, the sitemap when the shop serves one)."},
		{name: "listCategories", path: "/catalog/categories", handler: s.listCategories, body: "CategoryList", tag: tagCatalog,
			summary: "Product categories holding at least one visible product.",
			desc: "The categories holding at least one catalog-visible product, in the storefront's order, each with its " +
				"slug (the products operation's category filter), name, storefront URL, parent and product count " +
				"(descendants included: the filtered list's total equals it)."},
		{name: "listProducts", path: "/catalog/products", handler: s.listProducts, body: "ProductList", tag: tagProducts,
			summary: "One page of the catalog-visible products, by ascending post ID unless orderby says otherwise.", params: listParams,
			desc: "The products an anonymous visitor sees in the shop's catalog, a page at a time, filtered by category " +
				"(descendants included) and framework; or found as the storefront finds them: search, orderby and " +
				"order, a price range, stock and sale, with facets=true for the filter widgets' counts. Each shows what the storefront shows: price, regular price, sale, " +
				"stock, categories, frameworks, image and a summary cut to 300 characters. X-WP-Total, X-WP-TotalPages " +
				"and Link (first, prev, next, last) page it as WordPress's REST collections do.",
			headers: []string{"X-WP-Total", "X-WP-TotalPages"},
			errors: map[string]string{"400": "A parameter is invalid; code names the first (" + ns + "_invalid_" +
				strings.Join(paramNames(listParams), ", "+ns+"_invalid_") + "), data.params each one."}},
		{name: "getProduct", path: "/catalog/products/{slug}", handler: s.getProduct, body: "Product", tag: tagProducts,
			summary: "One published product by its English slug, with its whole summary and description.",
			desc: "One published product by its slug as the list shows it, hidden from the catalog or not, with its " +
				"whole summary and its description as plain text (empty for a password-protected product). Another " +
				"language's slug answers 404 with a hint naming the product's slug in the language served.",
			params: []param{slugParam},
			errors: map[string]string{"400": "The slug has characters no slug has (" + ns + "_invalid_slug).",
				"404": "No published product has the slug (" + ns + "_product_not_found)."}},
	}
}

// The document's tags, one per kind of resource.
const (
	tagCatalog  = "Catalog"
	tagProducts = "Products"
)

// allowed is the Allow header of every route.
const allowed = "GET, HEAD, OPTIONS"

// NewServer returns the public HTTP handler of the API.
func NewServer(d Deps) http.Handler {
	if d.Namespace == "" {
		d.Namespace = "shop"
	}
	if d.RateLimit <= 0 {
		d.RateLimit = 60
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.AccessLogger == nil {
		d.AccessLogger = d.Logger
	}
	if d.Cache == nil {
		d.Cache = NewCache(CacheConfig{})
	}
	s := &server{
		cat:        d.Catalog,
		ns:         d.Namespace,
		base:       Base(d.Namespace),
		site:       strings.TrimRight(d.SiteURL, "/"),
		shape:      ShapeOf(d),
		limits:     newRateLimiter(d.RateLimit, maxTrackedIPs, d.EnforceRateLimit),
		clients:    clientIPs{trusted: d.TrustedProxies},
		metrics:    d.Metrics,
		log:        d.Logger,
		accessLog:  d.AccessLog,
		alog:       d.AccessLogger,
		lines:      d.AccessLines,
		developers: d.DevelopersURL,
		tags:       tagger{ns: d.Namespace, fields: 1},
	}
	fresh := DefaultFreshness
	if d.Freshness != nil {
		fresh = *d.Freshness
	}
	if d.TagHeader == TagBoth {
		s.tags.fields = 2
	}
	d.Cache.setTagging(d.Namespace, d.TagHeader)
	s.link = []string{"<" + s.site + "/openapi.json>; rel=\"service-desc\""}
	s.openapi = OpenAPI(s.ns, s.site+s.base)
	r := mux.NewRouter()
	// Clean paths are routed as they come: no redirects, a client reading
	// JSON should never have to follow one.
	r.SkipClean(true)
	api := r.PathPrefix(s.base).Subrouter()
	table := s.routes()
	s.paths = pathTemplates(table)
	for _, rt := range table {
		api.Handle(rt.path, s.handle(rt.handler)).Methods(http.MethodGet, http.MethodHead).Name(rt.name)
		api.Handle(rt.path, http.HandlerFunc(s.preflight)).Methods(http.MethodOptions)
		// Any other method on a served path is a 405. gorilla/mux's own
		// MethodNotAllowedHandler only fires when the last route tried
		// matched the path (mux v1.8.1 resets the mismatch on later
		// routes), so each route gets its explicit fallback.
		api.Handle(rt.path, s.handle(s.methodNotAllowed))
	}
	// The companion documents, at the site's root.
	for path, h := range map[string]func(http.ResponseWriter, *http.Request) error{
		"/openapi.json": s.serveOpenAPI, "/.well-known/openapi.json": s.serveOpenAPI,
		"/.well-known/api-catalog": s.serveAPICatalog, "/llms.txt": s.serveLLMsTxt,
	} {
		r.Handle(path, s.handle(h)).Methods(http.MethodGet, http.MethodHead)
		r.Handle(path, http.HandlerFunc(s.preflight)).Methods(http.MethodOptions)
		r.Handle(path, s.handle(s.methodNotAllowed))
	}
	r.NotFoundHandler = s.handle(s.notFound)
	api.NotFoundHandler = r.NotFoundHandler
	list := s.base + "/catalog/products" // the one operation that reads the query
	return s.middleware(canonicalSlugs(list+"/", parseList(list, d.Cache.middleware(r, apiKey(list), newCacheControl(fresh)))))
}

// middleware wraps every response: panics become a JSON 500, a trailing
// slash is tolerated, and the common headers are set before routing so that
// errors and 304s carry them too; requests are counted and logged.
func (s *server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := newStatusWriter(w, start)
		w = sw
		defer func() {
			// r is the request as routed (the deferred call reads it after
			// the rewrites below).
			route := s.routeOf(r.URL.Path)
			took := time.Since(start)
			s.metrics.observe(route, sw.status, took)
			if s.accessLog && !s.probes.quiet(r, route, sw.status, s.accessDebug) {
				s.logRequest(r, sw, route, start, took)
			}
			sw.release()
		}()
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "panic serving request", "path", r.URL.Path, "panic", v)
				s.writeError(w, r, &catalog.Error{Kind: catalog.EINTERNAL, Reason: "internal_error",
					Message: "The server failed to answer this request."})
			}
		}()
		if p, ok := restRoute(r.URL); ok {
			r2 := r.Clone(r.Context())
			r2.URL.Path, r2.URL.RawPath = p, ""
			r = r2
		}
		if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimRight(p, "/")
			if r2.URL.Path == "" {
				r2.URL.Path = "/"
			}
			r2.URL.RawPath = ""
			r = r2
		}
		// The constant headers share read-only value slices: the hit path
		// allocates nothing for them.
		h := w.Header()
		h["X-Content-Type-Options"] = hdrNosniff
		h["Access-Control-Allow-Origin"] = hdrAnyOrigin
		h["Access-Control-Expose-Headers"] = hdrExposed
		h["Link"] = s.link
		if refuse, reset := s.limits.setHeaders(h, s.clients.of(r), start); refuse {
			h.Set("Retry-After", strconv.Itoa(reset))
			s.writeError(w, r, &catalog.Error{Kind: eRateLimited, Reason: "rate_limited",
				Message: "Too many requests from your address in this minute.",
				Hint:    "Wait for the number of seconds in Retry-After; prefer a larger per_page over more pages."})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// logRequest writes the access log's line for a request answered. Without
// AccessLines, the record goes to the slog handler directly: Logger.LogAttrs
// would walk the stack for the caller's position, which no handler of
// catalogd prints, and read the clock again.
func (s *server) logRequest(r *http.Request, sw *statusWriter, route routeID, start time.Time, took time.Duration) {
	e := accessEntry{time: start.Add(took), method: r.Method, path: r.URL.Path,
		query: r.URL.RawQuery, status: sw.status, cache: sw.cacheState(),
		route: routeNames[route], took: took, ua: headerValue(r.Header, "User-Agent")}
	if s.lines != nil {
		if s.lines.enabled() {
			s.lines.write(&e)
		}
		return
	}
	if h := s.alog.Handler(); h.Enabled(r.Context(), slog.LevelInfo) {
		_ = h.Handle(r.Context(), accessRecord(&e))
	}
}

// accessRecord is the access log's slog record for e: the lines AccessLog
// writes are this record's as the slog handlers format it.
func accessRecord(e *accessEntry) slog.Record {
	rec := slog.NewRecord(e.time, slog.LevelInfo, "request", 0)
	rec.AddAttrs(slog.String("method", e.method), slog.String("path", e.path),
		slog.String("query", e.query), slog.Int("status", e.status),
		slog.String("cache", e.cache), slog.String("route", e.route),
		slog.Duration("took", e.took), slog.String("ua", e.ua))
	return rec
}

// restRoute returns the path a request names in WordPress's other two
// spellings of a REST URL, which WordPress accepts for every route and so
// catalogd does too: a rest_route argument, on any path and before the path
// (PHP keeps the last of several), and /index.php/wp-json/… (sites without
// pretty permalinks). ok is false for the plain /wp-json/… form.
func restRoute(u *url.URL) (path string, ok bool) {
	if strings.Contains(u.RawQuery, "rest_route=") {
		if v := api.QueryValues(u.RawQuery)["rest_route"]; len(v) > 0 && v[len(v)-1] != "" {
			return "/wp-json/" + strings.TrimLeft(v[len(v)-1], "/"), true
		}
	}
	if p, found := strings.CutPrefix(u.Path, "/index.php/wp-json"); found && (p == "" || p[0] == '/') {
		return "/wp-json" + p, true
	}
	return "", false
}

// Constant header values, shared read-only.
var (
	hdrNosniff   = []string{"nosniff"}
	hdrAnyOrigin = []string{"*"}
	// hdrExposed are the response headers a browser script may read.
	hdrExposed = []string{"RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, " +
		"X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, ETag, Link, Retry-After, " +
		"X-WP-Total, X-WP-TotalPages"}
)

// preflight answers a CORS preflight: any origin may GET.
func (s *server) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Allow", allowed)
	h.Set("Access-Control-Allow-Methods", allowed)
	h.Set("Access-Control-Allow-Headers", "Accept, Accept-Encoding, If-None-Match, If-Modified-Since, User-Agent, Content-Type")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) getCatalogIndex(w http.ResponseWriter, r *http.Request) error {
	idx, err := s.cat.Index(r.Context())
	if err != nil {
		return err
	}
	describe(r, idx.Version, time.Time{}, idx.Modified, []string{s.tags.kind("index")})
	w.Header().Set(SnapshotHeader, s.shape.Identity(idx.Digest))
	return s.writeJSON(w, r, http.StatusOK, s.links(idx))
}

func (s *server) listCategories(w http.ResponseWriter, r *http.Request) error {
	list, err := s.cat.Categories(r.Context())
	if err != nil {
		return err
	}
	// Its kind alone: every change that moves a category (a term, a
	// product entering, leaving or changing category) names it.
	describe(r, list.Version, time.Time{}, list.Modified, []string{s.tags.kind("categories")})
	return s.writeJSON(w, r, http.StatusOK, list.CategoryList)
}

func (s *server) listProducts(w http.ResponseWriter, r *http.Request) error {
	// Products reports the problems the parse found together with those only
	// the catalog can tell (an unknown category), in the contract's order.
	q := listQueryOf(r)
	list, err := s.cat.Products(r.Context(), q)
	if err != nil {
		return err
	}
	describe(r, list.Version, list.ExpiresAt, list.Modified, s.tags.listTags(list))
	s.setPagingHeaders(w.Header(), q, list)
	return s.writeJSON(w, r, http.StatusOK, list.ProductList)
}

func (s *server) getProduct(w http.ResponseWriter, r *http.Request) error {
	p, err := s.cat.Product(r.Context(), mux.Vars(r)["slug"])
	if err != nil {
		return err
	}
	describe(r, p.Version, p.ExpiresAt, p.Modified, s.tags.productTags(p))
	return s.writeJSON(w, r, http.StatusOK, p.Product)
}

// links fills in the index's links: every operation under the base path,
// the documents at the site's root. The site is the configured one, else
// the shop's home (the index's Site).
func (s *server) links(idx *catalog.Index) api.Index {
	out := idx.Index
	site := s.site
	if site == "" {
		site = idx.Site
	}
	base := site + s.base
	out.Endpoints = api.Endpoints{
		Catalog:    base + "/catalog",
		Categories: base + "/catalog/categories",
		Products:   base + "/catalog/products",
		Product:    base + "/catalog/products/{slug}",
	}
	out.OpenAPI = site + "/openapi.json"
	out.LLMsTxt = site + "/llms.txt"
	return out
}
