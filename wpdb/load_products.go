package wpdb

import (
	"context"
	"slices"
	"strconv"

	"catalogd/catalog"
)

// chunk is how many IDs one statement names at most: however many products
// change at once, their reads stay short statements on the primary and
// post_id indexes, none of which holds the database for long or sorts much.
const chunk = 2000

// LoadProducts reads the products with the IDs, whatever their state, with
// what their fields need, in one consistent read under the load deadline.
func (db *DB) LoadProducts(ctx context.Context, r catalog.Reads, ids []int64) (*catalog.ProductRows, error) {
	var rows *catalog.ProductRows
	err := db.underLoadDeadline(ctx, "the read of the changed products", func(ctx context.Context) error {
		return db.view(ctx, db.load, func(ctx context.Context, tx *Tx) error {
			tables, _, err := tx.tables(ctx, r.Tables)
			if err != nil {
				return err
			}
			rows, err = tx.loadProducts(ctx, r, ids, tables)
			return err
		})
	})
	return rows, classify(err)
}

// loadProducts reads the products and everything their fields need, a
// chunk of IDs per statement: posts, terms, meta, variations, grouped
// children, images, translation groups.
func (tx *Tx) loadProducts(ctx context.Context, r catalog.Reads, ids []int64, tables map[string]bool) (*catalog.ProductRows, error) {
	rows := &catalog.ProductRows{Meta: catalog.Meta{}, Terms: map[int64][]int64{},
		Children: map[int64][]int64{}, WPML: map[int64]catalog.WPMLElement{}, Groups: map[int64]map[string]int64{}}
	polylang, err := tx.HasPolylangGroups(ctx)
	if err != nil {
		return nil, err
	}
	loaded := make(map[int64]bool, len(ids))
	var images []int64
	for part := range slices.Chunk(ids, chunk) {
		posts, err := tx.Posts(ctx, part, true)
		if err != nil {
			return nil, err
		}
		rows.Posts = append(rows.Posts, posts...)
		for _, p := range posts {
			loaded[p.ID] = true
		}
		if err := tx.postDetails(ctx, r, part, rows); err != nil {
			return nil, err
		}
		variations, err := tx.Variations(ctx, part)
		if err != nil {
			return nil, err
		}
		rows.Related = append(rows.Related, variations...)
		var vids []int64
		for _, v := range variations {
			vids = append(vids, v.ID)
		}
		for vpart := range slices.Chunk(vids, chunk) {
			if err := tx.meta(ctx, r, vpart, rows); err != nil {
				return nil, err
			}
		}
		if tables[catalog.TableWPMLTranslations] {
			w, err := tx.WPMLPosts(ctx, part)
			if err != nil {
				return nil, err
			}
			for id, e := range w {
				rows.WPML[id] = e
			}
		}
		if polylang {
			var ttids []int64
			for _, id := range part {
				ttids = append(ttids, rows.Terms[id]...)
			}
			slices.Sort(ttids)
			g, err := tx.PolylangGroups(ctx, slices.Compact(ttids))
			if err != nil {
				return nil, err
			}
			for tt, m := range g {
				rows.Groups[tt] = m
			}
		}
		for _, id := range part {
			if th, err := strconv.ParseInt(rows.Meta.First(id, catalog.MetaThumbnail), 10, 64); err == nil && th > 0 {
				images = append(images, th)
			}
		}
	}

	if err := tx.children(ctx, r, ids, loaded, rows); err != nil {
		return nil, err
	}
	for part := range slices.Chunk(images, chunk) {
		if err := tx.meta(ctx, r, part, rows); err != nil {
			return nil, err
		}
	}
	dropBare(rows.Meta, r.MetaLists)
	return rows, nil
}

// postDetails reads the terms and meta of posts into rows.
func (tx *Tx) postDetails(ctx context.Context, r catalog.Reads, ids []int64, rows *catalog.ProductRows) error {
	rel, err := tx.Relationships(ctx, ids)
	if err != nil {
		return err
	}
	for id, tts := range rel {
		rows.Terms[id] = tts
	}
	return tx.meta(ctx, r, ids, rows)
}

// meta reads the meta of posts into rows.
func (tx *Tx) meta(ctx context.Context, r catalog.Reads, ids []int64, rows *catalog.ProductRows) error {
	m, err := tx.Meta(ctx, ids, r.MetaKeys)
	if err != nil {
		return err
	}
	for id, kv := range m {
		rows.Meta[id] = kv
	}
	return nil
}
