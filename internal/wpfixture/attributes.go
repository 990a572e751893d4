package wpfixture

import (
	"context"
	"fmt"
	"strings"
)

// Attribute is one more attribute a shop manager adds on the product's
// Attributes tab, after the framework ones: a global attribute (Name is
// its taxonomy, pa_…, registered with Shop.Attribute; Values its term
// slugs) or a local one (Name as typed; Values as typed).
type Attribute struct {
	Name   string
	Values []string
	Hidden bool // "Visible on the product page" unticked
}

// global says whether the attribute is a registered attribute's taxonomy.
func (a Attribute) global() bool { return strings.HasPrefix(a.Name, "pa_") }

// Attribute registers a global attribute as Products → Attributes does
// (wc_create_attribute: the label stored as typed) and adds its terms,
// name → slug, their "order" meta in the order given.
func (s *Shop) Attribute(name, label, orderBy string, terms ...[2]string) {
	s.Row("woocommerce_attribute_taxonomies",
		[]string{"attribute_name", "attribute_label", "attribute_type", "attribute_orderby", "attribute_public"},
		name, label, "select", orderBy, 0)
	for i, t := range terms {
		ref := s.Term("pa_"+name, t[0], t[1], 0)
		s.TermMeta(ref.TermID, "order", fmt.Sprint(i))
	}
}

// attributeEntries are the _product_attributes entries of the extra
// attributes, from position n on, keyed as update_attributes keys them
// (sanitize_title of the name); a local one's values joined with
// " | " (wc_implode_text_attributes).
func attributeEntries(attrs []Attribute, n int) []string {
	var parts []string
	for i, a := range attrs {
		name, key, value, tax := a.Name, a.Name, "", 1
		if !a.global() {
			key, value, tax = strings.ReplaceAll(strings.ToLower(a.Name), " ", "-"), strings.Join(a.Values, " | "), 0
		}
		visible := 1
		if a.Hidden {
			visible = 0
		}
		parts = append(parts, fmt.Sprintf("s:%d:%q;", len(key), key)+Serialize(map[string]any{"name": name,
			"value": value, "position": n + i, "is_visible": visible, "is_variation": 0, "is_taxonomy": tax},
			"name", "value", "position", "is_visible", "is_variation", "is_taxonomy"))
	}
	return parts
}

// relateAttributes relates the product to its global attributes' terms
// (wp_set_object_terms).
func (s *Shop) relateAttributes(id int64, attrs []Attribute) {
	for _, a := range attrs {
		if a.global() {
			for _, v := range a.Values {
				s.Relate(id, s.TermRef(a.Name, v))
			}
		}
	}
}

// EditAttributeTerm is Products → Attributes → Configure terms → Edit →
// Update with a new name: wp_update_term's two updates (an attribute's
// taxonomy is not hierarchical: no {taxonomy}_children option).
func (o *Ops) EditAttributeTerm(ctx context.Context, taxonomy, slug, name string) error {
	ttID, termID, err := o.TermTTID(ctx, taxonomy, slug)
	if err != nil {
		return err
	}
	if err := o.exec(ctx, "UPDATE "+o.t("terms")+" SET name = ?, slug = ?, term_group = 0 WHERE term_id = ?", escapeName(name), slug, termID); err != nil {
		return err
	}
	return o.exec(ctx, "UPDATE "+o.t("term_taxonomy")+" SET term_id = ?, taxonomy = ?, parent = 0 WHERE term_taxonomy_id = ?", termID, taxonomy, ttID)
}

// EditAttributeLabel is Products → Attributes → Edit → Update with a new
// name: wc_update_attribute's $wpdb->update of the attribute's row, then
// delete_transient('wc_attribute_taxonomies').
func (o *Ops) EditAttributeLabel(ctx context.Context, name, label string) error {
	if err := o.exec(ctx, "UPDATE "+o.t("woocommerce_attribute_taxonomies")+" SET attribute_label = ? WHERE attribute_name = ?", label, name); err != nil {
		return err
	}
	_, err := o.deleteOption(ctx, "_transient_wc_attribute_taxonomies")
	return err
}

// SetAttributes is the Attributes tab's "Save attributes" with the
// Framework attribute's terms and more attributes after them: the save
// writes _product_attributes (update_attributes). A global attribute's
// terms other than the framework's stay as they are.
func (o *Ops) SetAttributes(ctx context.Context, id int64, frameworks []string, more ...Attribute) error {
	attrs := (&Shop{}).productAttributes(frameworks, nil, false, more...)
	return o.wcSave(ctx, id, wcChanges{frameworks: append([]string{}, frameworks...), attrsMeta: attrs})
}
