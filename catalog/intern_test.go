package catalog

import (
	"reflect"
	"testing"
)

// TestInterner: items of one build share their equal lists and prices,
// never unequal ones, whatever the values hold, and keep every value they
// were built with; an append to a shared list does not reach the others.
func TestInterner(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name  string
		a, b  item
		share bool // whether a's and b's lists and prices are to be shared
	}{
		{"equal lists shared", item{ttids: append(make([]int64, 0, 8), 1, 2), cats: []string{"a", "b"}, catIDs: []int64{7}, fws: []string{"esx"},
			windows: []window{{hasSale: true, below: true, hasTo: true, to: 99}}, price: str("9.00"), regular: str("12.00")},
			item{ttids: []int64{1, 2}, cats: []string{"a", "b"}, catIDs: []int64{7}, fws: []string{"esx"},
				windows: []window{{hasSale: true, below: true, hasTo: true, to: 99}}, price: str("9.00"), regular: str("12.00")}, true},
		{"different lists apart", item{ttids: []int64{1, 2}, cats: []string{"a"}, catIDs: []int64{7}, fws: []string{"esx"},
			windows: []window{{hasSale: true}}, price: str("9.00"), regular: str("9.00")},
			item{ttids: []int64{1, 3}, cats: []string{"b"}, catIDs: []int64{8}, fws: []string{"qbox"},
				windows: []window{{hasSale: true, below: true}}, price: str("8.00"), regular: str("8.00")}, false},
		{"a window's bound apart", item{windows: []window{{hasFrom: true, from: 5}}}, item{windows: []window{{hasTo: true, to: 5}}}, false},
		// Term slugs are read as stored: one holding the separator a
		// joined key would use must not pass for two.
		{"slugs joined alike apart", item{cats: []string{"a\x00b"}, fws: []string{"a", ""}},
			item{cats: []string{"a", "b"}, fws: []string{"a\x00"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantA, wantB := tt.a, tt.b
			a, b := tt.a, tt.b
			in := newInterner()
			in.item(&a)
			in.item(&b)
			for _, c := range []struct {
				name      string
				got, want item
			}{{"a", a, wantA}, {"b", b, wantB}} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("item %s interned as %+v, want %+v", c.name, c.got, c.want)
				}
			}
			if shared := len(a.cats) > 0 && &a.cats[0] == &b.cats[0]; tt.share != shared && len(a.cats) > 0 {
				t.Errorf("cats shared: %v, want %v", shared, tt.share)
			}
			if tt.share && a.price != b.price {
				t.Error("equal prices not shared")
			}
			// A reader's append to a shared list copies it, even where
			// the list was built with room to spare.
			if len(b.ttids) > 0 {
				if grown := append(a.ttids, 99); &grown[0] == &b.ttids[0] {
					t.Errorf("an append to a's terms wrote into b's array: %v", grown)
				}
			}
		})
	}
}

// TestPacker: texts keep their values as substrings of one string, empty
// ones and texts appended in place included.
func TestPacker(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
	}{
		{"every text", []string{"s", "Name", "https://x/s/", "https://x/i.jpg", "a long summary", "a long…"}},
		{"empty texts", []string{"s", "", "u", "", ""}},
		{"none", nil},
	}
	var p packer // reused, as a core reuses its own
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.start()
			for i, s := range tt.texts {
				if i%2 == 0 {
					p.add(s)
				} else { // as an URL is appended
					p.b = append(p.b, s...)
					p.end()
				}
			}
			all := string(p.b)
			from := 0
			for i, want := range tt.texts {
				got := all[from:p.ends[i]]
				from = p.ends[i]
				if got != want {
					t.Errorf("text %d is %q, want %q", i, got, want)
				}
			}
		})
	}
}
