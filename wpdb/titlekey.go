package wpdb

import (
	"errors"
	"strings"

	"github.com/go-sql-driver/mysql"

	"catalogd/catalog"
	"catalogd/wpsearch"
)

// titleKey is the sort key of post_title that ORDER BY post_title sorts
// by (catalog.Post.TitleKey), made by the server under the column's own
// collation: its weights, cut where the server's sort cuts them
// (max_sort_length). A collation that pads with spaces (PAD SPACE: a
// trailing space changes nothing, and a shorter title compares as if
// padded) gets its trailing spaces trimmed and one appended, so that
// the keys compare byte by byte as the padded titles do: "abc" before
// "abc!", after "abc" and a tab.
const titleKey = `SUBSTRING(IF(CONCAT(LEFT(post_title, 0), 'a') = CONCAT(LEFT(post_title, 0), 'a '),
		WEIGHT_STRING(CONCAT(TRIM(TRAILING ' ' FROM post_title), ' ')), WEIGHT_STRING(post_title)),
		1, @@max_sort_length)`

// titleKeyColumn is the expression the posts reads select as title_key:
// titleKey, or on a server found to have no WEIGHT_STRING (the demo's
// embedded one) the title itself, which foldTitleKeys turns into a key.
func (tx *Tx) titleKeyColumn() string {
	if tx.db.noWeights.Load() {
		return "post_title"
	}
	return titleKey
}

// withoutWeights reports whether a posts read failed for want of
// WEIGHT_STRING, and if so has the reads do without it: the caller reads
// again. Found by the read itself, not a probe, so that a server that has
// it is sent nothing more.
func (tx *Tx) withoutWeights(err error) bool {
	if !IsUnknownFunction(err) || tx.db.noWeights.Load() {
		return false
	}
	tx.db.noWeights.Store(true)
	return true
}

// foldTitleKeys makes the title keys of posts read without the server's
// weights: each title folded as the search folds it, case and accents
// aside, close to the collation's order though not its exact one.
func (tx *Tx) foldTitleKeys(posts []catalog.Post) {
	if !tx.db.noWeights.Load() {
		return
	}
	for i := range posts {
		if posts[i].TitleKey != "" {
			posts[i].TitleKey = string(wpsearch.Fold(nil, posts[i].TitleKey))
		}
	}
}

// IsUnknownFunction reports whether err is the server's "no such
// function": MySQL's and MariaDB's 1305, or the generic 1105 whose text
// says so, as the demo's embedded server answers.
func IsUnknownFunction(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	return me.Number == 1305 ||
		me.Number == 1105 && strings.HasPrefix(me.Message, "function:") && strings.HasSuffix(me.Message, "not found")
}
