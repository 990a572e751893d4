package proctest

import "strings"

// LeakWindow is the shortest part of a secret a test looks for: as
// internal/redact takes out any 8 characters of one, none may be left.
const LeakWindow = 8

// Leaks lists the parts of LeakWindow characters of secret that text
// holds, in any case: a test fails on any.
func Leaks(text, secret string) []string {
	lower := strings.ToLower(text)
	var found []string
	for i := 0; i+LeakWindow <= len(secret); i++ {
		if w := secret[i : i+LeakWindow]; strings.Contains(lower, strings.ToLower(w)) {
			found = append(found, w)
		}
	}
	return found
}
