// Package gittree reads the files of a tag's src/ tree out of a bare NCCL
// repository for the generators under tools/ (genparams, gensrclines),
// which turn facts of each tag into the data files gatesim embeds.
package gittree

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// File is one file of the tree: its path from the repository root and
// its content.
type File struct {
	Path string
	Data []byte
}

// ReadSrc reads every file under src/ at tag that wanted accepts, in path
// order, with git ls-tree and one git cat-file --batch.
func ReadSrc(gitDir, tag string, wanted func(path string) bool) ([]File, error) {
	if strings.HasPrefix(tag, "-") {
		return nil, fmt.Errorf("bad tag %q", tag)
	}
	ls := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "-z", "--name-only", tag+"^{tree}", "--", "src")
	var lsOut, lsErr bytes.Buffer
	ls.Stdout, ls.Stderr = &lsOut, &lsErr
	if err := ls.Run(); err != nil {
		return nil, fmt.Errorf("git ls-tree %s in %s: %v: %s", tag, gitDir, err, strings.TrimSpace(lsErr.String()))
	}
	var paths []string
	for _, p := range strings.Split(lsOut.String(), "\x00") {
		if p != "" && wanted(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	cat := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(tag + ":" + p + "\n")
	}
	cat.Stdin = &in
	var catErr bytes.Buffer
	cat.Stderr = &catErr
	outPipe, err := cat.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cat.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	br := bufio.NewReader(outPipe)
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		hdr, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file %s: %v", p, err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("git cat-file %s:%s: unexpected answer %q", tag, p, strings.TrimSpace(hdr))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file %s: bad size %q", p, f[2])
		}
		data := make([]byte, size+1) // content plus the trailing newline
		if _, err := io.ReadFull(br, data); err != nil {
			return nil, fmt.Errorf("git cat-file %s: %v", p, err)
		}
		files = append(files, File{Path: p, Data: data[:size]})
	}
	if err := cat.Wait(); err != nil {
		return nil, fmt.Errorf("git cat-file: %v: %s", err, strings.TrimSpace(catErr.String()))
	}
	return files, nil
}
