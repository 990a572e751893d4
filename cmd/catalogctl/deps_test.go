package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The client shares the API's wire types with the server and nothing else
// of it: no database driver, no HTML tokenizer, no catalog rules.
func TestLinksNothingOfTheServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		for _, banned := range []string{"github.com/go-sql-driver/mysql", "github.com/jmoiron/sqlx", "database/sql",
			"golang.org/x/net/html", "catalogd/catalog", "catalogd/wpdb", "catalogd/wpopt", "catalogd/httpapi"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("catalogctl links %s", dep)
			}
		}
	}
	found := false
	for _, dep := range deps {
		found = found || dep == "catalogd/api"
	}
	if !found {
		t.Errorf("catalogctl does not use the wire types of catalogd/api: %v", deps)
	}
}
