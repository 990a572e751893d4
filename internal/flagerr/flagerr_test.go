package flagerr

import (
	"flag"
	"io"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	tests := []struct {
		args    []string
		kind    Kind
		name    string
		value   string
		expects string
	}{
		{[]string{"--wait", "soon"}, BadValue, "wait", "soon", "a duration like 5s or 500ms"},
		{[]string{"--wait=a \"quoted\" value"}, BadValue, "wait", `a "quoted" value`, "a duration like 5s or 500ms"},
		{[]string{"-n", "many"}, BadValue, "n", "many", "a whole number"},
		{[]string{"--share", "half"}, BadValue, "share", "half", "a number like 0.01"},
		{[]string{"--json=maybe"}, BadValue, "json", "maybe", "true or false"},
		{[]string{"--nope"}, Unknown, "nope", "", ""},
		{[]string{"--name"}, MissingValue, "name", "", ""},
		{[]string{"--wait"}, MissingValue, "wait", "", "a duration like 5s or 500ms"},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Duration("wait", time.Second, "")
		fs.Int("n", 1, "")
		fs.Float64("share", 0.5, "")
		fs.Bool("json", false, "")
		fs.String("name", "", "")
		err := fs.Parse(tt.args)
		if err == nil {
			t.Fatalf("%q parsed", tt.args)
		}
		p := Read(fs, err)
		if p.Kind != tt.kind || p.Name != tt.name || p.Value != tt.value {
			t.Errorf("%q: %+v, want kind %v name %q value %q", tt.args, p, tt.kind, tt.name, tt.value)
			continue
		}
		got := ""
		if p.Flag != nil {
			got = Expects(p.Flag)
		}
		if got != tt.expects {
			t.Errorf("%q: expects %q, want %q", tt.args, got, tt.expects)
		}
	}
}
