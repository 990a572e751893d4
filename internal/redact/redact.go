// Package redact takes secrets (the database password, a CDN's API token)
// out of texts and errors before they reach a log line, a metric or a
// response: the one implementation wpdb, purge and config share.
package redact

import (
	"strings"
	"unicode/utf8"
)

// Mark is what stands where a secret was.
const Mark = "[redacted]"

// Window is the shortest part of a secret taken out as the secret: a text
// may hold a secret only in part — an API that shortened its echo, a line
// cut at a limit — and 8 characters of a token are 8 characters an
// attacker need not guess. A secret shorter than Window is taken out only
// whole.
const Window = 8

// String takes out of s every occurrence of secret, and every run of at
// least Window characters that also stands in secret (letters compared
// without case: an API may echo a token in another case); each run,
// overlapping or adjacent ones merged, becomes one Mark. s is returned as
// it is when secret is empty or s holds none of it.
func String(s, secret string) string {
	runs := secretRuns(s, secret)
	if len(runs) == 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	at := 0
	for _, r := range runs {
		out = append(out, s[at:r.start]...)
		out = append(out, Mark...)
		at = r.end
	}
	return string(append(out, s[at:]...))
}

// Shorten takes secret out of s, then cuts it to at most n bytes (at a
// character's start) and marks the cut with "…". The order matters: a
// text cut first would keep the part of a secret that stands before the
// cut, and no whole secret would be left to find.
func Shorten(s string, n int, secret string) string {
	s = String(s, secret)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	// Not inside a mark: "[reda…" would read as a mangled text.
	if i := strings.LastIndex(s[:n], Mark[:1]); i >= 0 && i+len(Mark) > n && strings.HasPrefix(s[i:], Mark) {
		n = i
	}
	return s[:n] + "…"
}

// Error returns err with its text passed through text, or err itself when
// text leaves it as it was. The original stays reachable for errors.Is
// and errors.As (callers classify by it), never formatted.
func Error(err error, text func(string) string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if r := text(msg); r != msg {
		return &redactedError{msg: r, err: err}
	}
	return err
}

// ErrorOf is Error taking secret out of err's text, as String does.
func ErrorOf(err error, secret string) error {
	return Error(err, func(s string) string { return String(s, secret) })
}

// redactedError is an error whose text held a secret: its text is the
// redacted one.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// run is s[start:end], a part of the secret.
type run struct{ start, end int }

// secretRuns finds the runs of s of at least min(Window, len(secret))
// bytes that stand in secret, merged where they overlap or touch, widened
// to whole characters, in order. It is the longest common substring's
// table, one row at a time: cur[j+1] is the length of the longest run of s
// ending at i that also ends at secret[j]. O(len(s)·len(secret)), on texts
// of an error's size.
func secretRuns(s, secret string) []run {
	if secret == "" || len(s) == 0 {
		return nil
	}
	least := min(Window, len(secret))
	prev := make([]int, len(secret)+1)
	cur := make([]int, len(secret)+1)
	var runs []run
	for i := 0; i < len(s); i++ {
		longest := 0
		c := fold(s[i])
		for j := 0; j < len(secret); j++ {
			if c == fold(secret[j]) {
				cur[j+1] = prev[j] + 1
				longest = max(longest, cur[j+1])
			} else {
				cur[j+1] = 0
			}
		}
		prev, cur = cur, prev
		if longest < least {
			continue
		}
		r := run{start: i + 1 - longest, end: i + 1}
		for r.start > 0 && !utf8.RuneStart(s[r.start]) {
			r.start--
		}
		if n := len(runs); n > 0 && r.start <= runs[n-1].end {
			runs[n-1].start = min(runs[n-1].start, r.start)
			runs[n-1].end = r.end
			continue
		}
		runs = append(runs, r)
	}
	// A run ending inside a character takes the rest of it.
	for k := range runs {
		for runs[k].end < len(s) && !utf8.RuneStart(s[runs[k].end]) {
			runs[k].end++
		}
	}
	return runs
}

// fold lowers an ASCII letter.
func fold(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
