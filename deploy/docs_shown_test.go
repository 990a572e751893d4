package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// startsWithCommand reports whether prose or a comment starts a command.
func startsWithCommand(s string, words []string) bool {
	for _, w := range words {
		if s == w || strings.HasPrefix(s, w+" ") {
			return true
		}
	}
	return false
}

var (
	fenceRE      = regexp.MustCompile("^```\\s*(\\S*)")
	inlineCodeRE = regexp.MustCompile("`([^`]+)`")
	exitRE       = regexp.MustCompile(`^\(exit (\d+)\)$`)
)

// shownCommands collects every command the documentation shows.
func shownCommands(t *testing.T) []shown {
	t.Helper()
	docs, _ := filepath.Glob("../docs/*.md")
	var cmds []shown
	for _, f := range append([]string{"../README.md"}, docs...) {
		cmds = append(cmds, markdownCommands(t, f)...)
	}
	for _, f := range shippedFiles(t) {
		cmds = append(cmds, commentCommands(t, f)...)
	}
	if len(cmds) == 0 {
		t.Fatal("no command found in the documentation: the parser is broken")
	}
	return cmds
}

func markdownCommands(t *testing.T, path string) []shown {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(path, "../")
	lines := strings.Split(string(b), "\n")
	var cmds []shown
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			for _, s := range inlineCodeRE.FindAllStringSubmatch(lines[i], -1) {
				if startsWithCommand(s[1], commandWords) {
					cmds = append(cmds, shown{where: fmt.Sprintf("%s:%d", name, i+1), text: s[1]})
				}
			}
			continue
		}
		start := i + 1
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
		}
		body := lines[start:i]
		block := strings.Join(body, "\n")
		switch m[1] {
		case "sh", "bash", "shell", "console":
			for _, c := range shellCommands(body) {
				cmds = append(cmds, shown{where: fmt.Sprintf("%s:%d", name, start+1+c.line), text: c.text, block: block})
			}
			continue
		}
		for j := 0; j < len(body); j++ {
			text, ok := strings.CutPrefix(body[j], "$ ")
			if !ok {
				continue
			}
			c := shown{where: fmt.Sprintf("%s:%d", name, start+1+j), text: text, block: block, transcript: true, exit: -1}
			var out []string
			for j++; j < len(body); j++ {
				if e := exitRE.FindStringSubmatch(body[j]); e != nil {
					c.exit, _ = strconv.Atoi(e[1])
					break
				}
				out = append(out, body[j])
			}
			if c.exit < 0 {
				t.Errorf("%s: the transcript of `%s` does not end in its (exit N) line", c.where, text)
			}
			if len(out) > 0 {
				c.output = strings.Join(out, "\n") + "\n"
			}
			cmds = append(cmds, c)
		}
	}
	return cmds
}

type shellCommand struct {
	line int // index of its first line in the block
	text string
}

// shellCommands splits a shell block into its commands: a command ends at a
// line end that is outside quotes and not escaped. Comment lines are not
// commands; a comment after a command is part of it, as the shell reads it.
func shellCommands(lines []string) []shellCommand {
	var cmds []shellCommand
	var cur []string
	first := 0
	single, double := false, false
	for i, l := range lines {
		if len(cur) == 0 {
			if s := strings.TrimSpace(l); s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			first = i
		}
		cur = append(cur, l)
		escaped := false
	scan:
		for k, c := range l {
			switch {
			case escaped:
				escaped = false
			case c == '\\' && !single:
				escaped = true
			case c == '\'' && !double:
				single = !single
			case c == '"' && !single:
				double = !double
			case c == '#' && !single && !double && (k == 0 || l[k-1] == ' ' || l[k-1] == '\t'):
				break scan
			}
		}
		if single || double || escaped {
			continue
		}
		cmds = append(cmds, shellCommand{first, strings.Join(cur, "\n")})
		cur = nil
	}
	if cur != nil {
		cmds = append(cmds, shellCommand{first, strings.Join(cur, "\n")})
	}
	return cmds
}

// commentCommands finds the commands a deployment file's comments show.
// "catalogd" and "nginx" start sentences there, so they do not count.
func commentCommands(t *testing.T, path string) []shown {
	t.Helper()
	var cmds []shown
	for _, c := range commentLines(t, path) {
		if startsWithCommand(c.text, commandWords) {
			cmds = append(cmds, shown{where: c.where, text: c.text})
		}
		for _, s := range inlineCodeRE.FindAllStringSubmatch(c.text, -1) {
			if startsWithCommand(s[1], commandWords) {
				cmds = append(cmds, shown{where: c.where, text: s[1]})
			}
		}
	}
	return cmds
}
