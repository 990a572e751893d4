package wpsearch

import (
	"bytes"
	"context"
	"database/sql"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"catalogd/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Run(m)) }

// lookAlikes are sets of characters (or short strings) a visitor may type
// for one another; some are one class under the collation, some are not.
// The generated pairs swap a text's characters for others of their set.
var lookAlikes = [][]string{
	{"e", "E", "é", "É", "ê", "è", "ë", "ẽ", "e\u0301"},
	{"s", "S", "ß", "ẞ", "ss", "ſ", "Ś"},
	{"i", "I", "ı", "İ", "í", "ï", "ｉ", "Ⅰ"},
	{"a", "A", "á", "Å", "\u212b", "ａ", "Ａ", "ª", "𝐀", "ä"},
	{"f", "F", "ﬁ", "ﬀ", "fi"},
	{"o", "O", "ø", "Ø", "ö", "œ", "º", "Œ"},
	{"ae", "æ", "Æ", "ǽ"},
	{"k", "K", "\u212a", "ķ"},
	{"dz", "ǅ", "Ǆ", "ǆ", "DZ"},
	{" ", "\u00a0", "\t", "\u2003", "\u3000"},
	{"\u0301", "\u0300", "\u00ad", "\u200d", "\x00", "\U000E0100", "\u0308", "\x01"},
	{"%", "_", `\`, "％", "＿", "＼", "'", `"`},
	{"2", "²", "₂", "２", "٢"},
	{"σ", "Σ", "ς", "ϲ"},
	{"е", "e", "Е", "ё"},
	{"一", "⼀", "㈠", "壹"},
	{"😀", "😃", "🏳️\u200d🌈"},
	{"'", "’", "‘", "`"},
	{"-", "‐", "–", "—", "−"},
	{"\xed\xa0\x80", "\xed\xb0\x80", "\uFFFD"}, // surrogates, which MariaDB stores
	{"가", "ㄱ", "각"},
}

type element struct{ set, member int } // set -1: an ASCII letter or digit, member its byte

func (e element) String() string {
	if e.set < 0 {
		return string(rune(e.member))
	}
	return lookAlikes[e.set][e.member]
}

func randomElement(r *rand.Rand) element {
	if r.IntN(3) == 0 {
		const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		return element{-1, int(plain[r.IntN(len(plain))])}
	}
	s := r.IntN(len(lookAlikes))
	return element{s, r.IntN(len(lookAlikes[s]))}
}

func join(es []element) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.String())
	}
	return b.String()
}

// randomPairs are n texts with a pattern each: half of them a piece of the
// text with characters swapped for look-alikes, half random.
func randomPairs(r *rand.Rand, n int) [][2]string {
	out := make([][2]string, 0, n)
	for range n {
		text := make([]element, r.IntN(10))
		for i := range text {
			text[i] = randomElement(r)
		}
		var pattern []element
		if len(text) > 0 && r.IntN(2) == 0 {
			lo := r.IntN(len(text))
			hi := lo + 1 + r.IntN(len(text)-lo)
			for _, e := range text[lo:hi] {
				if e.set >= 0 && r.IntN(2) == 0 {
					e.member = r.IntN(len(lookAlikes[e.set]))
				}
				pattern = append(pattern, e)
			}
		} else {
			pattern = make([]element, 1+r.IntN(3))
			for i := range pattern {
				pattern[i] = randomElement(r)
			}
		}
		out = append(out, [2]string{join(text), join(pattern)})
	}
	return out
}

// escLike is wpdb::esc_like: LIKE's wildcards and escape character made
// literal.
func escLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// TestFoldAgreesWithLike asks MariaDB, for a few thousand texts and
// patterns in a utf8mb4_unicode_520_ci column, whether text LIKE
// '%pattern%' (the pattern escaped as WordPress escapes it) and compares
// with Fold: the named cases and generated ones, of look-alike characters.
func TestFoldAgreesWithLike(t *testing.T) {
	db := testdb.Open(t, testdb.New(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	execSQL(ctx, t, db, "CREATE TABLE pairs (id INT PRIMARY KEY, text LONGTEXT NOT NULL, pattern LONGTEXT NOT NULL) "+
		"DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci")
	var pairs [][2]string
	for _, c := range likeCases {
		pairs = append(pairs, [2]string{c.text, c.pattern})
	}
	pairs = append(pairs, randomPairs(rand.New(rand.NewPCG(42, 1)), 4000)...)
	const batch = 500
	for lo := 0; lo < len(pairs); lo += batch {
		hi := min(lo+batch, len(pairs))
		var args []any
		for i, p := range pairs[lo:hi] {
			args = append(args, lo+i, p[0], escLike(p[1]))
		}
		execSQL(ctx, t, db, "INSERT INTO pairs VALUES "+strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", hi-lo), ", "), args...)
	}
	rows, err := db.QueryContext(ctx, "SELECT id, text, text LIKE CONCAT('%', pattern, '%') FROM pairs ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n, matched, failed int
	for rows.Next() {
		var id int
		var stored []byte
		var like bool
		if err := rows.Scan(&id, &stored, &like); err != nil {
			t.Fatal(err)
		}
		p := pairs[id]
		if string(stored) != p[0] {
			t.Fatalf("pair %d: the server stored %q for %q", id, stored, p[0])
		}
		n++
		if like {
			matched++
		}
		if got := bytes.Contains(Fold(nil, p[0]), Fold(nil, p[1])); got != like && failed < 20 {
			failed++
			t.Errorf("%q LIKE '%%%s%%' is %v, Fold says %v (%q, %q)", p[0], escLike(p[1]), like, got,
				Fold(nil, p[0]), Fold(nil, p[1]))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pairs, %d matched", n, matched)
	if n != len(pairs) || matched < n/5 || matched > n*4/5 {
		t.Errorf("compared %d pairs of %d, %d matched: the generated pairs test too little", n, len(pairs), matched)
	}
}

func execSQL(ctx context.Context, t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(ctx, q, args...); err != nil {
		t.Fatalf("%.200s: %v", q, err)
	}
}
