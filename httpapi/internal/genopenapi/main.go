// Command genopenapi writes the OpenAPI document of the default
// configuration (namespace shop, the site as a server variable), for
// readers and tools; catalogd serves the same document for its own site.
package main

import (
	"fmt"
	"os"

	"catalogd/httpapi"
)

func main() {
	path := "openapi.json"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := os.WriteFile(path, httpapi.OpenAPI("shop", httpapi.DocServerURL), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genopenapi:", err)
		os.Exit(1)
	}
}
