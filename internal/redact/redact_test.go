package redact

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	const token = "Zq7vK2mXp9LwR4tN8bYc3HdF6gJs1Ue5" // 32 characters
	tests := []struct {
		name, in, secret, want string
	}{
		{"every occurrence", "token s3cr3t, again s3cr3t", "s3cr3t", "token [redacted], again [redacted]"},
		{"absent", "nothing here", "s3cr3t", "nothing here"},
		{"no secret", "nothing here", "", "nothing here"},
		{"a short secret only whole", "s3cr s3cr3t", "s3cr3t", "s3cr [redacted]"},
		{"the first 8 characters", "key " + token[:8] + "… is invalid", token, "key [redacted]… is invalid"},
		{"the last 8 characters", "…" + token[24:] + " is invalid", token, "…[redacted] is invalid"},
		{"7 characters are not the token", "key " + token[:7] + " ok", token, "key " + token[:7] + " ok"},
		{"a middle part", "x" + token[5:20] + "y", token, "x[redacted]y"},
		{"in another case", "KEY=" + strings.ToUpper(token), token, "KEY=[redacted]"},
		{"twice without a gap, one mark", token + token, token, "[redacted]"},
		{"overlapping parts, one mark", token[:20] + token[10:], token, "[redacted]"},
		// "é" and "©" share their last byte: the run starts inside "©",
		// and the mark takes the whole character.
		{"whole characters", "x©abcdefgh!", "éabcdefgh", "x[redacted]!"},
	}
	for _, tt := range tests {
		if got := String(tt.in, tt.secret); got != tt.want {
			t.Errorf("%s: String(%q, %q) = %q, want %q", tt.name, tt.in, tt.secret, got, tt.want)
		}
	}
}

// Whatever the cut, no 8 characters of the secret are left: the text is
// redacted before it is cut.
func TestShortenLeavesNoPartOfTheSecret(t *testing.T) {
	t.Parallel()
	const token = "Zq7vK2mXp9LwR4tN8bYc3HdF6gJs1Ue5"
	for at := 0; at <= 260; at++ {
		text := strings.Repeat("a", at) + token + " is not a valid key"
		got := Shorten(text, 200, token)
		if len(got) > 200+len("…") {
			t.Fatalf("at %d: %d bytes, want at most 200 and the mark", at, len(got))
		}
		for i := 0; i+Window <= len(token); i++ {
			if strings.Contains(got, token[i:i+Window]) {
				t.Fatalf("the token at %d, cut at 200: %q holds %q", at, got, token[i:i+Window])
			}
		}
	}
	if got := Shorten("key: "+token, 10, token); got != "key: …" {
		t.Errorf("a cut inside the mark: %q, want it before the mark", got)
	}
	if got := Shorten("short", 200, token); got != "short" {
		t.Errorf("Shorten of a short text = %q", got)
	}
	if got := Shorten(strings.Repeat("é", 150), 201, ""); got != strings.Repeat("é", 100)+"…" {
		t.Errorf("cut inside a character: %q", got)
	}
}

// A redacted error says the redacted text and still is what it wraps; an
// error with nothing to redact is returned as it is.
func TestError(t *testing.T) {
	t.Parallel()
	if ErrorOf(nil, "s3cr3t") != nil {
		t.Error("ErrorOf(nil) is not nil")
	}
	clean := errors.New("connection refused")
	if got := ErrorOf(clean, "s3cr3t"); got != clean {
		t.Errorf("ErrorOf(%v) = %v, want the error itself", clean, got)
	}
	err := ErrorOf(fmt.Errorf("dial s3cr3t: %w", io.EOF), "s3cr3t")
	if got, want := err.Error(), "dial [redacted]: EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("errors.Is(%v, io.EOF) = false", err)
	}
}
