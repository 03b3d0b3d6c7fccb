package ncclmirror

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// Source reads files of NCCL's tags from the mirror through one
// `git cat-file --batch` process, each (tag, path) read once: a test that
// checks hundreds of references costs one process, not one per file.
type Source struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	files map[string]*string // "tag:path" → text, nil when absent
}

// OpenSource starts the reader on the git directory dir (ForTest's) and
// stops it when tb ends.
func OpenSource(tb testing.TB, dir string) *Source {
	tb.Helper()
	cmd := exec.Command("git", "--git-dir", dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("git cat-file --batch: %v", err)
	}
	s := &Source{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), files: map[string]*string{}}
	tb.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return s
}

// revision is the git revision a Ref's tag names: a release tag
// (v2.28.9-1) as it is, "branch@commit" (a reference to a file that is on
// no release tag) as its commit.
func revision(tag string) string {
	if _, commit, ok := strings.Cut(tag, "@"); ok {
		return commit
	}
	return tag
}

// File returns the text of path at tag and whether the tag has that file
// (a blob: a directory is not a file).
func (s *Source) File(tag, path string) (string, bool, error) {
	key := revision(tag) + ":" + path
	if t, ok := s.files[key]; ok {
		if t == nil {
			return "", false, nil
		}
		return *t, true, nil
	}
	if strings.ContainsAny(key, "\n") {
		return "", false, fmt.Errorf("%q: a line break in a reference", key)
	}
	if _, err := io.WriteString(s.in, key+"\n"); err != nil {
		return "", false, err
	}
	head, err := s.out.ReadString('\n')
	if err != nil {
		return "", false, fmt.Errorf("git cat-file %s: %v", key, err)
	}
	f := strings.Fields(head)
	if len(f) == 2 && f[1] == "missing" || len(f) >= 2 && f[1] == "ambiguous" {
		s.files[key] = nil
		return "", false, nil
	}
	if len(f) != 3 {
		return "", false, fmt.Errorf("git cat-file %s: unexpected header %q", key, head)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return "", false, fmt.Errorf("git cat-file %s: size in %q: %v", key, head, err)
	}
	buf := make([]byte, n+1) // the object and its trailing newline
	if _, err := io.ReadFull(s.out, buf); err != nil {
		return "", false, fmt.Errorf("git cat-file %s: %v", key, err)
	}
	if f[1] != "blob" {
		s.files[key] = nil
		return "", false, nil
	}
	text := string(buf[:n])
	s.files[key] = &text
	return text, true, nil
}

var identPattern = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// RefNames splits a reference into the files it cites and the
// identifiers it names in each. Func names one or more identifiers of
// File ("ncclIbInit", "scheduleP2pTasksToPlan, calcP2pChunkSize",
// "ncclSymkArgsHandler::getWorkRange", "struct ncclDevWorkColl",
// "RunWorkColl<ncclFuncAllReduce, NCCL_ALGO_NVLS>"); a part after ";" that
// starts with a path ("…; src/include/channel.h ncclChannelCompute") cites
// another file of the same tag.
func RefNames(r nccl.Ref) (files []string, names [][]string) {
	file := r.File
	files = append(files, file)
	names = append(names, nil)
	for i, part := range strings.Split(r.Func, ";") {
		part = strings.TrimSpace(part)
		if i > 0 {
			if first, rest, _ := strings.Cut(part, " "); strings.Contains(first, "/") {
				file, part = first, rest
				files = append(files, file)
				names = append(names, nil)
			}
		}
		for _, id := range identPattern.FindAllString(part, -1) {
			if id == "struct" {
				continue
			}
			names[len(names)-1] = append(names[len(names)-1], id)
		}
	}
	return files, names
}

// HasWord reports whether text has id as a whole C identifier (not as a
// part of a longer one: ncclIbInit is not in ncclIbInitDevices).
func HasWord(text, id string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], id)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(id)
		if (i == 0 || !identByte(text[i-1])) && (j == len(text) || !identByte(text[j])) {
			return true
		}
		off = i + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// CheckRef lists what of r is not at its tag: each cited file that the tag
// does not have and each identifier that its file does not contain as a
// word. Empty when the reference holds.
func (s *Source) CheckRef(r nccl.Ref) ([]string, error) {
	if r.Tag == "" || r.File == "" || r.Func == "" {
		return []string{fmt.Sprintf("incomplete reference %q", r.String())}, nil
	}
	var bad []string
	files, names := RefNames(r)
	for i, path := range files {
		text, ok, err := s.File(r.Tag, path)
		if err != nil {
			return nil, err
		}
		if !ok {
			bad = append(bad, fmt.Sprintf("%s has no %s", r.Tag, path))
			continue
		}
		if len(names[i]) == 0 {
			bad = append(bad, fmt.Sprintf("%s %s: names no identifier", r.Tag, path))
		}
		for _, id := range names[i] {
			if !HasWord(text, id) {
				bad = append(bad, fmt.Sprintf("%s:%s has no %s", r.Tag, path, id))
			}
		}
	}
	return bad, nil
}
