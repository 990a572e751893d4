vcl 4.1;
# Kubernetes copy of deploy/varnish/catalogd.vcl: the backend is the Service
# catalogd; purgers are the pods' networks, and the NetworkPolicy lets only
# catalogd's pods reach the purge listener.
# Varnish 7 in front of catalogd, purged by catalogd itself on each pod's
# purge listener (CATALOG_PURGE_VARNISH=http://catalogd-varnish-0.catalogd-varnish-peers:6091,…,
# set by kustomization.yaml beside this file). Needs the xkey vmod
# (Debian: varnish-modules). See statefulset.yaml beside this file for the
# start parameters and docs/cdn-and-proxies.md for the whole setup.
#
# What it does with catalogd's answers:
# - keeps a 200 for its s-maxage (Varnish reads it before max-age), a 4xx
#   for its max-age (a minute);
# - serves a copy up to stale-while-revalidate past that while it fetches a
#   new one in the background, and up to stale-if-error past it while
#   catalogd is down (the probe below says so) or answers 5xx;
# - keeps one object per answer: the query parameters catalogd ignores
#   (utm_*, gclid, …) dropped, the rest sorted, one Host;
# - indexes every copy by the purge tags of its Surrogate-Key (or Cache-Tag)
#   header, which catalogd's PURGE / with an xkey header drops at once; a
#   purge needs the shared secret of /etc/catalogd/varnish-purge-secret too;
# - strips the tags and catalogd's own X-Cache before the client (Cache-Tag
#   passes on to a CDN above with CATALOGD_PASS_CACHE_TAG=true), and says
#   X-Cache: HIT or MISS for itself.
import std;
import xkey;

backend catalogd {
    .host = "catalogd";
    .port = "8080";
    .connect_timeout = 1s;
    .first_byte_timeout = 30s;
    # The probe tells "catalogd is down" from "this answer is slow": while it
    # fails, copies are served for as long as their stale-if-error allows.
    # The index is answered from catalogd's memory: a cheap probe. A HEAD,
    # which catalogd takes for a probe: its access log writes the line only
    # when the status changes, not once a second.
    .probe = {
        .request = "HEAD /wp-json/shop/v1/catalog HTTP/1.1"
                   "Host: catalogd"
                   "User-Agent: varnish-probe"
                   "Connection: close";
        .interval = 1s;
        .timeout = 1s;
        .window = 3;
        .threshold = 2;
        .initial = 2;
    }
}

# Who may purge: catalogd (its purger), and an operator's purge job, from
# the cluster's private addresses, on the listener named purge (varnishd -a
# purge=:6091, statefulset.yaml), which the NetworkPolicy lets only
# catalogd's pods reach. The public listener never purges: every visitor's
# request comes to it through the cluster's ingress, from a private address.
acl purgers {
    "10.0.0.0"/8;
    "172.16.0.0"/12;
    "192.168.0.0"/16;
    "fc00::"/7;
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (local.socket != "purge" || client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        # And the shared secret: an address alone is any process on it (a
        # compromised pod, in a cluster). catalogd sends it in Purge-Secret
        # (--purge-varnish-secret-file); the file holds it, spaces and line
        # ends around it ignored. Without the file every purge is refused.
        # std.fileread keeps what it read while any VCL that read it is
        # loaded: after a rotation, restart Varnish (a reload is not
        # enough; docs/edge-purge.md#the-purge-secret).
        if (req.http.Purge-Secret !~ "^\S+$" ||
            !std.file_exists("/etc/catalogd/varnish-purge-secret") ||
            req.http.Purge-Secret != regsuball(std.fileread("/etc/catalogd/varnish-purge-secret"), "^\s+|\s+$", "")) {
            return (synth(403, "Forbidden: Purge-Secret is missing or wrong"));
        }
        unset req.http.Purge-Secret;
        # xkey: drop the copies at once. xkey-softpurge: mark them stale
        # (served within their grace while a fresh copy is fetched).
        if (req.http.xkey) {
            set req.http.n-gone = xkey.purge(req.http.xkey);
        } else if (req.http.xkey-softpurge) {
            set req.http.n-gone = xkey.softpurge(req.http.xkey-softpurge);
        } else {
            return (synth(400, "Name the tags in an xkey or xkey-softpurge header"));
        }
        return (synth(200, "Purged " + req.http.n-gone));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # catalogd's answers depend on no cookie and no login: the shop's
    # visitors' WordPress cookies must not make every request a miss.
    unset req.http.Cookie;
    # One object per answer, however it is asked for: otherwise each
    # spelling is an object and a backend fetch of its own, and a way to
    # fill the store and go around the cache. catalogd reads these query
    # parameters and no other (httpapi.QueryParams; varnish_test.go keeps
    # this list equal to it) and ignores the rest, as its own cache key
    # does: utm_*, gclid, fbclid, a cache-buster are dropped, the rest
    # sorted. The backend gets the URL the object is kept under, so no
    # object can hold an answer to another URL.
    # What text cannot normalise goes to catalogd as it came, uncached: a
    # parameter name spelt with a percent escape (per%5Fpage, which
    # catalogd decodes and the list below would drop), or one catalogd
    # reads given twice (it takes the last; sorting would move it).
    if (req.url ~ "[?&][^=&]*%" ||
        req.url ~ "[?&](category|facets|framework|in_stock|max_price|min_price|on_sale|order|orderby|page|per_page|rest_route|search)=[^&]*&(.*&)?\1(=|&|$)") {
        return (pass);
    }
    set req.url = regsub(req.url, "^https?://[^/]*", "");
    if (req.url ~ "\?") {
        set req.http.catalogd-query = regsuball(regsub(req.url, "^[^?]*\?", "&"),
            "&(?!(?:category|facets|framework|in_stock|max_price|min_price|on_sale|order|orderby|page|per_page|rest_route|search)(?:=|&|$))[^&]*", "");
        set req.url = std.querysort(regsub(req.url, "\?.*$", "") +
            regsub(req.http.catalogd-query, "^&", "?"));
        unset req.http.catalogd-query;
    }
    # catalogd builds every URL it answers with from its --site-url (or
    # the shop's home), never from Host: one Host for every answer, the
    # one the probe sends.
    set req.http.Host = "catalogd";
    # While catalogd is up, a copy past its lifetime is served only within
    # catalogd's --stale-while-revalidate (1m by default: keep them equal),
    # while a fresh one is fetched. While it is down, the copy's whole grace
    # applies: up to its stale-if-error (vcl_backend_response).
    if (std.healthy(req.backend_hint)) {
        set req.grace = 60s;
    }
}

sub vcl_backend_response {
    # The purge tags: Surrogate-Key is space-separated already; Cloudflare's
    # Cache-Tag is comma-separated.
    if (beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    } else if (beresp.http.Cache-Tag) {
        set beresp.http.xkey = regsuball(beresp.http.Cache-Tag, ",", " ");
    }
    # A failed background fetch keeps the copy it was to replace (served
    # within stale-if-error) rather than caching the failure.
    if (beresp.status >= 500 && bereq.is_bgfetch) {
        return (abandon);
    }
    # Grace: the longer of stale-while-revalidate and stale-if-error (both
    # capped by catalogd at the next sale date, so no stale price outlives
    # it); vcl_recv narrows it to stale-while-revalidate while catalogd is
    # healthy. Varnish's own reading of the header sets stale-while-
    # revalidate alone.
    if (beresp.http.Cache-Control ~ "stale-if-error=[0-9]+") {
        set beresp.grace = std.duration(regsub(beresp.http.Cache-Control,
            "^.*stale-if-error=([0-9]+).*$", "\1") + "s", beresp.grace);
    }
}

sub vcl_backend_error {
    # catalogd could not be reached and no copy could stand in: the
    # contract's JSON error rather than Varnish's HTML page.
    set beresp.http.Content-Type = "application/json; charset=UTF-8";
    set beresp.http.Cache-Control = "no-store";
    set beresp.http.Retry-After = "5";
    set beresp.body = """{"code":"shop_unavailable","message":"The catalog is unavailable.","data":{"status":503,"hint":"Retry after the number of seconds in the Retry-After header."}}""";
    set beresp.status = 503;
    return (deliver);
}

sub vcl_deliver {
    # The tags are for this cache; catalogd's X-Cache is its own cache's.
    # A CDN above this Varnish that purges by Cache-Tag (Cloudflare, with
    # catalogd's CATALOG_TAG_HEADER=both: docs/cdn-and-proxies.md) needs
    # that header, and strips it before the visitor: set
    # CATALOGD_PASS_CACHE_TAG=true in varnishd's environment (the drop-in's
    # Environment=, the StatefulSet's env) to pass it on. Anything else
    # strips it, as a visitor straight in front of this Varnish has no use
    # for it.
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
    if (std.getenv("CATALOGD_PASS_CACHE_TAG") != "true") {
        unset resp.http.Cache-Tag;
    }
    unset resp.http.X-Cache;
    unset resp.http.Via;
    unset resp.http.X-Varnish;
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
