package config

import (
	"errors"
	"flag"
)

// markJSON marks a *UsageError load returns with whether the log is JSON:
// --log-format where it was read before the mistake, else its variable. A
// log shipper reading catalogd's output in JSON parses every line, the
// lines of a start refused included.
func markJSON(fs *flag.FlagSet, getenv func(string) string, err *error) {
	var u *UsageError
	if !errors.As(*err, &u) {
		return
	}
	format := getenv(envName("log-format"))
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "log-format" {
			format = f.Value.String()
		}
	})
	u.JSON = format == "json"
}
