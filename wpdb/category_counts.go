package wpdb

import (
	"context"
	"fmt"
	"strings"
)

// Closure pairs a category with itself and each of its descendants, by
// term_taxonomy_id: Descendant's products count towards Ancestor.
type Closure struct {
	Ancestor, Descendant int64
}

// CategoryCounts counts, per ancestor of the closure, the distinct products
// passing the filter that sit in it or any descendant, in one query whatever
// the number of categories: the closure is sent as a derived table.
func (tx *Tx) CategoryCounts(ctx context.Context, f Filter, closure []Closure) (map[int64]int, error) {
	counts := map[int64]int{}
	if len(closure) == 0 {
		return counts, nil
	}
	var b strings.Builder
	args := make([]any, 0, 2*len(closure)+4)
	for i, c := range closure {
		if i == 0 {
			b.WriteString(`SELECT ? AS anc, ? AS dsc`)
		} else {
			b.WriteString(` UNION ALL SELECT ?, ?`)
		}
		args = append(args, c.Ancestor, c.Descendant)
	}
	where, wargs := f.where()
	args = append(args, wargs...)
	var rows []struct {
		Anc   int64 `db:"anc"`
		Count int   `db:"n"`
	}
	if err := tx.selectx(ctx, &rows, `
		SELECT c.anc, COUNT(DISTINCT p.ID) AS n
		FROM (`+b.String()+`) c
		JOIN {term_relationships} tr ON tr.term_taxonomy_id = c.dsc
		JOIN {posts} p ON p.ID = tr.object_id
		WHERE `+where+`
		GROUP BY c.anc`, args...); err != nil {
		return nil, fmt.Errorf("wpdb: count category products: %w", err)
	}
	for _, r := range rows {
		counts[r.Anc] = r.Count
	}
	return counts, nil
}
