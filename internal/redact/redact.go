// Package redact takes secrets (the database password, a CDN's API token)
// out of texts and errors before they reach a log line, a metric or a
// response: the one implementation wpdb, purge and config share.
package redact

import "strings"

// Mark is what stands where a secret was.
const Mark = "[redacted]"

// String takes every occurrence of secret out of s; s as it is when secret
// is empty.
func String(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, Mark)
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

// redactedError is an error whose text held a secret: its text is the
// redacted one.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
