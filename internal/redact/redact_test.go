package redact

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, secret, want string
	}{
		{"every occurrence", "token s3cr3t, again s3cr3t", "s3cr3t", "token [redacted], again [redacted]"},
		{"absent", "nothing here", "s3cr3t", "nothing here"},
		{"no secret", "nothing here", "", "nothing here"},
	}
	for _, tt := range tests {
		if got := String(tt.in, tt.secret); got != tt.want {
			t.Errorf("%s: String(%q, %q) = %q, want %q", tt.name, tt.in, tt.secret, got, tt.want)
		}
	}
}

// A redacted error says the redacted text and still is what it wraps; an
// error with nothing to redact is returned as it is.
func TestError(t *testing.T) {
	t.Parallel()
	secret := func(s string) string { return String(s, "s3cr3t") }
	if Error(nil, secret) != nil {
		t.Error("Error(nil) is not nil")
	}
	clean := errors.New("connection refused")
	if got := Error(clean, secret); got != clean {
		t.Errorf("Error(%v) = %v, want the error itself", clean, got)
	}
	err := Error(fmt.Errorf("dial s3cr3t: %w", io.EOF), secret)
	if got, want := err.Error(), "dial [redacted]: EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("errors.Is(%v, io.EOF) = false", err)
	}
}
