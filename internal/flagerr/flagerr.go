// Package flagerr reads the errors of the standard flag package, which
// name neither what a flag expects nor, for a refused value, in words a
// user is told elsewhere: catalogd and catalogctl each print one line of
// their own from what it finds.
package flagerr

import (
	"flag"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Kind is what the flag package refused.
type Kind int

const (
	Other        Kind = iota // an error flagerr does not know; Problem.Msg holds it
	BadValue                 // a value its flag cannot parse
	Unknown                  // a flag the set does not define
	MissingValue             // a flag given last, without its value
)

// Problem is a flag package error, read.
type Problem struct {
	Kind  Kind
	Name  string     // the flag's name, without dashes
	Flag  *flag.Flag // the flag, when the set defines it
	Value string     // the refused value (BadValue)
	Msg   string     // the flag package's own words
}

// valueRE matches the flag package's message for a refused value
// ("invalid value %q for flag -%s: %v", "invalid boolean value %q for -%s:
// %v").
var valueRE = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:\s]+): `)

// Read reads err, returned by fs.Parse.
func Read(fs *flag.FlagSet, err error) Problem {
	msg := err.Error()
	p := Problem{Msg: msg}
	if m := valueRE.FindStringSubmatch(msg); m != nil {
		if v, uerr := strconv.Unquote(m[1]); uerr == nil {
			p.Kind, p.Name, p.Value = BadValue, m[2], v
		}
	} else if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		p.Kind, p.Name = Unknown, strings.TrimLeft(name, "-")
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		p.Kind, p.Name = MissingValue, strings.TrimLeft(name, "-")
	}
	if p.Name != "" {
		p.Flag = fs.Lookup(p.Name)
	}
	if p.Kind == BadValue && p.Flag == nil {
		p.Kind = Other
	}
	return p
}

// Expects says what kind of value f takes, or "" for a string flag, whose
// own check says what it wants.
func Expects(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "a duration like 5s or 500ms"
	case int:
		return "a whole number"
	case float64:
		return "a number like 0.01"
	case bool:
		return "true or false"
	}
	return ""
}
