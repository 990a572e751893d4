package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"catalogd/internal/testdb"
	"catalogd/wpsearch"
)

// TestTableIsDebians: the committed table is what Debian's wordpress-l10n
// gives now; run go generate in wpsearch when it is not.
func TestTableIsDebians(t *testing.T) {
	if _, err := os.Stat(Dir); err != nil {
		testdb.Lacking(t, "Debian's WordPress translations are not installed (.ci/run installs wordpress-l10n): %v", err)
	}
	lists, err := Lists(Dir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Source(lists)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../stopwords_table.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, committed) {
		t.Errorf("wpsearch/stopwords_table.go differs from %s's translations (%d locales): run go generate ./wpsearch", Dir, len(lists))
	}
}

// mo is a .mo catalog of the pairs, in the byte order given.
func mo(order binary.AppendByteOrder, pairs ...[2]string) []byte {
	n := uint32(len(pairs))
	head := []uint32{0x950412de, 0, n, 28, 28 + 8*n, 0, 0}
	var strs []byte
	base := 28 + 16*n
	var originals, translations []uint32
	for _, p := range pairs {
		originals = append(originals, uint32(len(p[0])), base+uint32(len(strs)))
		strs = append(strs, p[0]...)
		strs = append(strs, 0)
		translations = append(translations, uint32(len(p[1])), base+uint32(len(strs)))
		strs = append(strs, p[1]...)
		strs = append(strs, 0)
	}
	var b []byte
	for _, v := range append(append(head, originals...), translations...) {
		b = order.AppendUint32(b, v)
	}
	return append(b, strs...)
}

func TestLookup(t *testing.T) {
	key := wpsearch.StopwordsContext + "\x04" + wpsearch.EnglishStopwords
	tests := []struct {
		name   string
		mo     []byte
		want   string
		found  bool
		broken bool
	}{
		{"little-endian", mo(binary.LittleEndian, [2]string{"", "header"}, [2]string{key, "und,oder"}), "und,oder", true, false},
		{"big-endian", mo(binary.BigEndian, [2]string{key, "och"}), "och", true, false},
		{"absent", mo(binary.LittleEndian, [2]string{"Search", "Suche"}), "", false, false},
		{"no catalog", []byte("not a catalog at all"), "", false, true},
		{"cut short", mo(binary.LittleEndian, [2]string{key, "und"})[:40], "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := lookup(tt.mo, key)
			if got != tt.want || found != tt.found || (err != nil) != tt.broken {
				t.Errorf("lookup = %q, %v, %v; want %q, %v, error %v", got, found, err, tt.want, tt.found, tt.broken)
			}
		})
	}
}
