package soak

import (
	"context"
	"os"
	"testing"
	"time"

	"catalogd/internal/demoshop"
	"catalogd/internal/testdb"
)

// TestSoak runs the soak for a minute (or the duration CATALOG_SOAK
// holds, like CATALOG_SOAK=3m) when CATALOG_SOAK is set: it is too long
// for every `make test`. `make soak` runs the command for longer.
func TestSoak(t *testing.T) {
	v := os.Getenv("CATALOG_SOAK")
	if v == "" {
		t.Skip("set CATALOG_SOAK=1 (or a duration) to run the one-minute soak")
	}
	o := DefaultOptions()
	o.Duration = time.Minute
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		o.Duration = d
	}
	if testing.Verbose() && os.Getenv("CATALOG_SOAK_LOG") != "" {
		o.Log = os.Stderr
	}
	dsn, _ := testdb.Load(t, demoshop.Shop())
	o.DSN = dsn
	bin, err := Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o.Binary = bin
	ctx, cancel := context.WithTimeout(context.Background(), o.Duration+2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.Markdown())
	for _, v := range rep.Violations {
		t.Error(v)
	}
}
