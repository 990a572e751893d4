package catalog

import (
	"catalogd/internal/nametable"
)

// productType is a product's type (its product_type term; a product
// without one is simple) as a code into the process's table of type names
// (productTypes): one byte in the item where the name would be a string,
// a pointer word the collector marks at every cycle.
type productType uint8

// The core's types have fixed codes. A plugin's own types (product_type
// terms such as subscription or bundle) are given the next code free when
// first seen.
const (
	typeSimple productType = iota
	typeVariable
	typeGrouped
	typeExternal
	typeVariation // a variation: not a term, the kind of a variable product's kid
	// typeOther is every type first seen once the table is full: 255
	// names, far more than a shop has. Sharing it changes nothing served:
	// the rules tell the core's types apart, never a plugin's one from
	// another.
	typeOther productType = 255
)

// The core's type names (product_type term slugs), in their codes' order.
const (
	typeNameSimple    = "simple"
	typeNameVariable  = "variable"
	typeNameGrouped   = "grouped"
	typeNameExternal  = "external"
	typeNameVariation = "variation"
)

// productTypes names the codes, for the whole process: a code keeps its
// name from one snapshot to the next, so items and terms compare across
// them.
var productTypes = newTypeTable(typeNameSimple, typeNameVariable, typeNameGrouped, typeNameExternal, typeNameVariation)

// typeTable assigns the codes (nametable): in order of first sight, never
// twice, never taken back. Snapshots' builds read it on several cores at
// once, and rarely add to it (a new type's first term).
type typeTable struct{ t *nametable.Table[productType] }

func newTypeTable(names ...string) typeTable {
	return typeTable{nametable.New[productType](int(typeOther), names...)}
}

// code is the type name's code, given on first sight: typeOther once the
// table is full.
func (t typeTable) code(name string) productType {
	if c, ok := t.t.Code(name); ok {
		return c
	}
	return typeOther
}

// name is the code's type name; "" for typeOther, which stands for many.
func (t typeTable) name(c productType) string { return t.t.Name(c) }

// String is the type's name (productTypes).
func (c productType) String() string { return productTypes.name(c) }

// productType is the product's product_type term, simple when it has none.
func (tax *terms) productType(ttids []int64) productType {
	for _, tt := range ttids {
		if typ, ok := tax.typeByTT[tt]; ok {
			return typ
		}
	}
	return typeSimple
}
