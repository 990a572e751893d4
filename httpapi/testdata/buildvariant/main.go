// Command buildvariant prints what a build of catalogd names itself by:
// the --version line and the Catalog-Snapshot identity of one shape and
// digest. TestIdentityNamesTheBuild builds it twice, as deploy/Dockerfile
// builds catalogd (nothing stamped), the two builds differing in variant
// alone.
package main

import (
	"fmt"

	"catalogd/httpapi"
	"catalogd/internal/buildinfo"
)

// variant is set with -ldflags -X: what one build answers otherwise than
// the other.
var variant string

func main() {
	fmt.Println("variant", variant)
	fmt.Println(buildinfo.String("catalogd"))
	fmt.Println(httpapi.Shape{Namespace: "shop", SiteURL: "https://shop.example"}.Identity("digest"))
}
