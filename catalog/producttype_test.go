package catalog

import (
	"strconv"
	"sync"
	"testing"
)

// TestTypeTable: the core's types keep their codes, a plugin's type gets
// the next code on first sight and keeps it, codes name their types, and
// once the table is full every new type shares typeOther, which the rules
// treat as any plugin's type.
func TestTypeTable(t *testing.T) {
	for c, name := range []string{typeNameSimple, typeNameVariable, typeNameGrouped, typeNameExternal, typeNameVariation} {
		if got := productTypes.code(name); got != productType(c) {
			t.Errorf("%s has code %d, want %d", name, got, c)
		}
		if got := productType(c).String(); got != name {
			t.Errorf("code %d is named %q, want %q", c, got, name)
		}
	}

	tt := newTypeTable(typeNameSimple, typeNameVariable, typeNameGrouped, typeNameExternal, typeNameVariation)
	var wg sync.WaitGroup
	codes := make([]productType, 8)
	for i := range codes {
		wg.Go(func() { codes[i] = tt.code("subscription") })
	}
	wg.Wait()
	for _, c := range codes {
		if c != typeVariation+1 {
			t.Fatalf("subscription has codes %v, want %d on every core", codes, typeVariation+1)
		}
	}
	if got := tt.name(codes[0]); got != "subscription" {
		t.Errorf("subscription's code is named %q", got)
	}
	for i := tt.t.Len(); i < int(typeOther); i++ {
		if c := tt.code("t" + strconv.Itoa(i)); c != productType(i) || tt.name(c) != "t"+strconv.Itoa(i) {
			t.Fatalf("type %d has code %d named %q", i, c, tt.name(c))
		}
	}
	for _, name := range []string{"one too many", "two too many"} {
		if c := tt.code(name); c != typeOther || tt.name(c) != "" {
			t.Errorf("%s past the table's end has code %d named %q, want typeOther", name, c, tt.name(c))
		}
	}
	if c := tt.code("subscription"); c != typeVariation+1 {
		t.Errorf("subscription's code moved to %d once the table filled", c)
	}
	if got := storedPrice(typeOther, []string{"5", "3"}); got != "5" {
		t.Errorf("typeOther is priced %s, as a simple product's first _price", got)
	}
}
