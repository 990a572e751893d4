package httpapi

import (
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// AccessLog writes the access log's lines, byte for byte the lines
// slog.NewTextHandler or slog.NewJSONHandler (with no ReplaceAttr, no
// AddSource, no WithAttrs or WithGroup) writes for the record logRequest
// makes, at a fraction of the cost: the line has a fixed set of fields, so
// it is encoded by hand into a pooled buffer instead of through a Record
// and the handler's generic encoder. The encoders follow log/slog's
// (handler.go, text_handler.go, json_handler.go); FuzzAccessLogLine holds
// them to slog's output. Each line goes to the writer in one Write call,
// under no lock of AccessLog's own: the writer must be safe for concurrent
// use (catalogd's batching log writer is), so requests logging at once do
// not wait for each other here.
type AccessLog struct {
	w     io.Writer
	json  bool
	level slog.Leveler
}

// AccessLogOptions are the handler options the lines reproduce.
type AccessLogOptions struct {
	JSON  bool         // slog.NewJSONHandler's lines; otherwise slog.NewTextHandler's
	Level slog.Leveler // as slog.HandlerOptions.Level: nil is info
}

// NewAccessLog returns an access log writing to w, which must be safe for
// concurrent use.
func NewAccessLog(w io.Writer, o AccessLogOptions) *AccessLog {
	return &AccessLog{w: w, json: o.JSON, level: o.Level}
}

// enabled reports whether an info line is written, as the slog handler's
// Enabled would.
func (a *AccessLog) enabled() bool {
	min := slog.LevelInfo
	if a.level != nil {
		min = a.level.Level()
	}
	return slog.LevelInfo >= min
}

// accessEntry is one access-log line's fields, in the order written.
type accessEntry struct {
	time                time.Time
	method, path, query string
	status              int
	cache, route        string
	took                time.Duration
	ua                  string
}

// lineBufs are the lines' buffers; a line is a few hundred bytes.
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxPooledLine keeps a line made huge by a huge query or user agent from
// staying in the pool.
const maxPooledLine = 4 << 10

func (a *AccessLog) write(e *accessEntry) {
	bp := lineBufs.Get().(*[]byte)
	b := (*bp)[:0]
	if a.json {
		b = appendAccessJSON(b, e)
	} else {
		b = appendAccessText(b, e)
	}
	_, _ = a.w.Write(b) // as slog's handler, whose error logRequest ignored
	if cap(b) <= maxPooledLine {
		*bp = b
		lineBufs.Put(bp)
	}
}

// appendAccessText appends e's line as slog.TextHandler writes it.
func appendAccessText(b []byte, e *accessEntry) []byte {
	// The record's time is rounded to strip the monotonic reading; a zero
	// time is left out.
	if t := e.time.Round(0); !t.IsZero() {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, t)
		b = append(b, ' ')
	}
	b = append(b, "level=INFO msg=request method="...)
	b = appendTextString(b, e.method)
	b = append(b, " path="...)
	b = appendTextString(b, e.path)
	b = append(b, " query="...)
	b = appendTextString(b, e.query)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, " cache="...)
	b = appendTextString(b, e.cache)
	b = append(b, " route="...)
	b = appendTextString(b, e.route)
	b = append(b, " took="...)
	b = append(b, e.took.String()...)
	b = append(b, " ua="...)
	b = appendTextString(b, e.ua)
	return append(b, '\n')
}

// appendAccessJSON appends e's line as slog.JSONHandler writes it.
func appendAccessJSON(b []byte, e *accessEntry) []byte {
	b = append(b, '{')
	if t := e.time.Round(0); !t.IsZero() {
		b = append(b, `"time":`...)
		if y := t.Year(); y < 0 || y >= 10000 {
			// slog writes the error, then the time anyway.
			b = appendJSONString(b, "!ERROR:"+errJSONYear.Error())
		}
		b = append(b, '"')
		b = t.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `",`...)
	}
	b = append(b, `"level":"INFO","msg":"request","method":`...)
	b = appendJSONString(b, e.method)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, e.path)
	b = append(b, `,"query":`...)
	b = appendJSONString(b, e.query)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, `,"cache":`...)
	b = appendJSONString(b, e.cache)
	b = append(b, `,"route":`...)
	b = appendJSONString(b, e.route)
	b = append(b, `,"took":`...)
	b = strconv.AppendInt(b, int64(e.took), 10)
	b = append(b, `,"ua":`...)
	b = appendJSONString(b, e.ua)
	return append(b, "}\n"...)
}

var errJSONYear = errors.New("time.Time year outside of range [0,9999]")

// appendRFC3339Millis is slog's text time: RFC 3339 with exactly three
// digits of milliseconds. RFC3339Nano is the fast layout but trims trailing
// zeros, so a tenth of a millisecond is added to keep four digits, and the
// fourth dropped.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendTextString appends s bare, or Go-quoted when the text handler
// quotes it.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// textNeedsQuoting is slog's needsQuoting: the empty string, space, '=',
// a character JSON escapes other than the backslash, invalid UTF-8, and
// non-ASCII space or unprintable runes.
func textNeedsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != '\\' && (c == ' ' || c == '=' || !jsonSafe[c]) {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// appendJSONString appends s as a JSON string, escaped as slog's
// appendEscapedJSONString does (no HTML escaping; invalid bytes become
// U+FFFD; U+2028 and U+2029 escaped).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonSafe is encoding/json's safeSet: the ASCII bytes a JSON string holds
// unescaped, every one but the control characters, '"' and '\\'.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
