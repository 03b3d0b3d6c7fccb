package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/tunertest"
)

// readmeCommand is one gatesim command of a README ```sh block.
type readmeCommand struct {
	line  int      // README line where the command starts
	args  []string // after "gatesim"
	stdin string   // what an "echo ... |" in front of it writes
	exits []int    // nonzero exit codes the README announces for it
}

// announced reads "exit 3" / "exits 1" in a comment: the README says the
// command may end with that code.
var announced = regexp.MustCompile(`\bexits? ([0-9])\b`)

// readmeCommands extracts every gatesim command of the ```sh blocks: lines
// joined at a trailing backslash, comments stripped (an exit code they
// announce kept), words split as sh does for quotes. Lines that do not run
// gatesim (make targets) are left out; a shell construct the extractor does
// not know is an error, so a new README example cannot slip past the test.
func readmeCommands(readme string) ([]readmeCommand, error) {
	var out []readmeCommand
	lines := strings.Split(readme, "\n")
	inSh := false
	var pending []int // exit codes a comment line above announces
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(l, "```sh"):
			inSh, pending = true, nil
			continue
		case strings.HasPrefix(l, "```"):
			inSh = false
			continue
		case !inSh:
			continue
		case l == "":
			pending = nil
			continue
		case strings.HasPrefix(l, "#"):
			pending = append(pending, exitsIn(l)...)
			continue
		}
		start := i + 1
		full := l
		for strings.HasSuffix(full, `\`) && i+1 < len(lines) {
			i++
			full = strings.TrimSuffix(full, `\`) + " " + strings.TrimSpace(lines[i])
		}
		words, comment, err := shellWords(full)
		if err != nil {
			return nil, fmt.Errorf("README.md:%d: %v", start, err)
		}
		c := readmeCommand{line: start, exits: append(append([]int(nil), pending...), exitsIn(comment)...)}
		if k := indexOf(words, "|"); k >= 0 {
			if k == 0 || words[0] != "echo" || k == len(words)-1 {
				return nil, fmt.Errorf("README.md:%d: only \"echo TEXT | gatesim ...\" pipes are understood", start)
			}
			c.stdin = strings.Join(words[1:k], " ") + "\n"
			words = words[k+1:]
		}
		switch {
		case len(words) == 0:
			return nil, fmt.Errorf("README.md:%d: no command", start)
		case words[0] == "make":
			continue
		case words[0] != "gatesim":
			return nil, fmt.Errorf("README.md:%d: %q is neither gatesim nor make", start, words[0])
		}
		for _, w := range words {
			if strings.ContainsAny(w, ";&><`$") && !strings.Contains(w, "=") {
				return nil, fmt.Errorf("README.md:%d: shell syntax %q is not understood", start, w)
			}
		}
		c.args = words[1:]
		out = append(out, c)
	}
	return out, nil
}

func exitsIn(comment string) []int {
	var codes []int
	for _, m := range announced.FindAllStringSubmatch(comment, -1) {
		n, _ := strconv.Atoi(m[1])
		codes = append(codes, n)
	}
	return codes
}

func indexOf(words []string, w string) int {
	for i, x := range words {
		if x == w {
			return i
		}
	}
	return -1
}

// shellWords splits one command line as sh would for the quoting the README
// uses ('...', "...", bare words; # outside quotes starts a comment).
func shellWords(s string) (words []string, comment string, err error) {
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(s[i+1:], ch)
			if j < 0 {
				return nil, "", fmt.Errorf("unterminated %c quote", ch)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '#' && !inWord:
			flush()
			return words, s[i:], nil
		case ch == '|' && !inWord:
			words = append(words, "|")
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return words, "", nil
}

// outputFlags name files or folders a command writes; the test points them
// into a temporary folder so a run never rewrites the repository's files.
var outputFlags = map[string]bool{"--out": true, "--trace": true, "--html": true, "--capture": true}

// exampleTuner is what `make example-tuner` builds (the Makefile's recipe):
// the README's --tuner commands run against the same plugin, built here
// into the test's folder.
const exampleTuner = "bin/libnccl-tuner-force.so"

// TestReadmeCommands runs every gatesim command of README.md, from the
// repository root, and fails on an exit code the README does not announce
// next to the command (0 is always allowed; "exit 3 without a GPU" allows 3).
func TestReadmeCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := readmeCommands(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 15 {
		t.Fatalf("found %d gatesim commands in README.md; the extractor lost some", len(cmds))
	}
	tmp := t.TempDir()
	tunerSO := tunertest.Build(t, tmp, 5, "force")
	t.Chdir(root)
	for _, c := range cmds {
		args := append([]string(nil), c.args...)
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "--tuner" && args[i+1] == exampleTuner {
				args[i+1] = tunerSO
			}
			if outputFlags[args[i]] {
				args[i+1] = filepath.Join(tmp, fmt.Sprintf("line%d-%s", c.line, filepath.Base(args[i+1])))
			}
		}
		name := fmt.Sprintf("README.md:%d", c.line)
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			var code int
			if c.stdin != "" {
				code = runWithInput(args, strings.NewReader(c.stdin), &out, &errb)
			} else {
				code = run(args, &out, &errb)
			}
			if code == 0 {
				if out.Len() == 0 {
					t.Errorf("gatesim %s: exit 0 and no output", strings.Join(c.args, " "))
				}
				return
			}
			for _, e := range c.exits {
				if e == code {
					return
				}
			}
			t.Errorf("gatesim %s: exit %d, which the README does not announce (announced: %v)\nstderr: %s",
				strings.Join(c.args, " "), code, c.exits, errb.String())
		})
	}
}

func TestReadmeCommandsExtractor(t *testing.T) {
	md := "text\n```sh\n# comment (exits 1 when it disagrees)\n" +
		"gatesim a --x 'q r' \\\n    --y \"s\"   # trailing, exit 3 without a GPU\n\n" +
		"echo '{\"a\": 1}' | gatesim oracle\nmake test   # not gatesim\n```\n" +
		"```yaml\ngatesim: not a command\n```\n"
	got, err := readmeCommands(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d commands, want 2: %+v", len(got), got)
	}
	if strings.Join(got[0].args, "|") != "a|--x|q r|--y|s" || fmt.Sprint(got[0].exits) != "[1 3]" || got[0].line != 4 {
		t.Errorf("first command %+v", got[0])
	}
	if got[1].stdin != "{\"a\": 1}\n" || strings.Join(got[1].args, " ") != "oracle" || len(got[1].exits) != 0 {
		t.Errorf("second command %+v", got[1])
	}
	for _, bad := range []string{"```sh\ngatesim x > out\n```", "```sh\ncat f | gatesim x\n```", "```sh\nls\n```", "```sh\ngatesim 'x\n```"} {
		if _, err := readmeCommands(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
