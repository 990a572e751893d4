package httpapi

import (
	"crypto/sha256"
	"encoding/hex"

	"catalogd/internal/buildinfo"
)

// SnapshotHeader carries, on the API index, the identity of what the answer
// was made from: a starting replica asks the edge for the index and
// compares it with its own, to tell a start among running replicas (the
// edge holds what this replica would answer: nothing to purge) from one
// after the shop changed with no replica running (purge everything). See
// docs/edge-purge.md, "Starting without emptying the edge".
const SnapshotHeader = "Catalog-Snapshot"

// SnapshotIdentity is the identity an answer made from a snapshot of the
// digest carries: the snapshot's content, and what else shapes the answers
// — the namespace, the site URL the links name, and catalogd's build (an
// upgrade may change any answer). Equal in every replica that read the
// same shop with the same settings and build; never a load counter or a
// time.
func SnapshotIdentity(digest, ns, site string) string {
	sum := sha256.Sum256([]byte(digest + "\x00" + ns + "\x00" + site + "\x00" + buildinfo.Version() + "\x00" + buildinfo.Commit()))
	return hex.EncodeToString(sum[:16])
}
