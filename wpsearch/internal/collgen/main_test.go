package main

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"catalogd/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Run(m)) }

// TestTableIsTheServers: the committed fold table is what the server's
// collation gives now; run go generate in wpsearch when it is not.
func TestTableIsTheServers(t *testing.T) {
	db := testdb.Open(t, testdb.New(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	folds, err := Folds(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Source(folds)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../fold_table.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, committed) {
		t.Errorf("wpsearch/fold_table.go differs from what the server gives (%d folds in %d runs): run go generate ./wpsearch",
			len(folds), len(Runs(folds)))
	}
}

func TestRuns(t *testing.T) {
	tests := []struct {
		name  string
		folds []Fold
		want  []Run
	}{
		{"none", nil, nil},
		{"one", []Fold{{0xE9, 0x45}}, []Run{{0xE9, 0xE9, 0x45, 0}}},
		{"alike", []Fold{{0xC0, 0x41}, {0xC1, 0x41}, {0xC2, 0x41}}, []Run{{0xC0, 0xC2, 0x41, 0}}},
		{"stepping", []Fold{{0x61, 0x41}, {0x62, 0x42}, {0x63, 0x43}}, []Run{{0x61, 0x63, 0x41, 1}}},
		{"a gap ends a run", []Fold{{0x61, 0x41}, {0x63, 0x43}}, []Run{{0x61, 0x61, 0x41, 0}, {0x63, 0x63, 0x43, 0}}},
		{"a change of step ends a run", []Fold{{0x61, 0x41}, {0x62, 0x42}, {0x63, 0x42}},
			[]Run{{0x61, 0x62, 0x41, 1}, {0x63, 0x63, 0x42, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Runs(tt.folds)
			if len(got) != len(tt.want) {
				t.Fatalf("Runs = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("Runs = %v, want %v", got, tt.want)
				}
			}
		})
	}
}
