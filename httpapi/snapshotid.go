package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"catalogd/internal/buildinfo"
)

// SnapshotHeader carries, on the API index, the identity of what the answer
// was made from: a starting replica asks the edge for the index and
// compares it with its own, to tell a start among running replicas (the
// edge holds what this replica would answer: nothing to purge) from one
// after the shop changed with no replica running (purge everything). See
// docs/edge-purge.md, "Starting without emptying the edge".
const SnapshotHeader = "Catalog-Snapshot"

// Base is the API's path under the site: /wp-json/{ns}/v1.
func Base(ns string) string { return "/wp-json/" + ns + "/v1" }

// IndexPath is the path of the catalog index, the answer that carries
// SnapshotHeader.
func IndexPath(ns string) string { return Base(ns) + "/catalog" }

// Shape is what, beside the snapshot, makes the answers the edge holds:
// the namespace and the site URL the links name, the tag headers that let
// a purge reach them, and the lifetimes they were given. A rolling
// restart that changes one of them must not be taken for a start beside
// replicas that answer alike.
type Shape struct {
	Namespace, SiteURL string
	TagHeader          TagHeader
	Freshness          Freshness
}

// ShapeOf is the shape of the answers a server of d makes.
func ShapeOf(d Deps) Shape {
	sh := Shape{Namespace: d.Namespace, SiteURL: strings.TrimRight(d.SiteURL, "/"), TagHeader: d.TagHeader,
		Freshness: DefaultFreshness}
	if d.Freshness != nil {
		sh.Freshness = *d.Freshness
	}
	return sh
}

// Identity is the identity an answer of this shape made from a snapshot
// of the digest carries, with catalogd's build (an upgrade may change any
// answer): its executable's hash, which names it where no version was
// stamped (an image built as deploy/Dockerfile builds it). Equal in every
// replica that read the same shop with the same settings and build; never
// a load counter or a time.
func (sh Shape) Identity(digest string) string {
	b, _ := json.Marshal(sh) // strings, ints and durations: never fails
	build := buildinfo.Version() + "\x00" + buildinfo.Commit() + "\x00" + buildinfo.Hash()
	sum := sha256.Sum256([]byte(digest + "\x00" + string(b) + "\x00" + build))
	return hex.EncodeToString(sum[:16])
}
