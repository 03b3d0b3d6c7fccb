package ncclog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestKeptStringsLeaveTheInput: the parser reads lines as substrings of
// blocks of input, and nothing it keeps (the Log, its maps and memo) may
// point into a block, or one kept string would hold a whole block in
// memory. The inputs are the public logs of the golden corpus and lines
// that take every path that keeps text: new processes past the limit,
// bare and launcher-prefixed lines, WARNs and "Last error:" texts,
// messages longer than the memo keeps, cut lines, unparsed lines.
func TestKeptStringsLeaveTheInput(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join("..", "golden", "testdata", "logs", "public", "*", "log.txt"))
	if err != nil || len(logs) < 20 {
		t.Fatalf("public logs: %d found (%v), want at least 20", len(logs), err)
	}
	var b strings.Builder
	for i := range maxProcs + 100 {
		b.WriteString("host" + strconv.Itoa(i%97) + ":" + strconv.Itoa(i) + ":1 [0] NCCL INFO Using network IB\n")
	}
	for i := range 50 {
		n := strconv.Itoa(i)
		b.WriteString("[1," + n + "]<stdout>:h" + n + ":7:8 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0." + n + "<33397> with error 4\n")
		b.WriteString("NCCL_IB_HCA set to mlx5_" + n + ":1\n")
		b.WriteString("[rank" + n + "]: NCCL_SOCKET_IFNAME set by environment to eth" + n + "\n")
		b.WriteString("h:1:1 [0] NCCL INFO NCCL_DEBUG_FILE set by environment to " + strings.Repeat("x", 600) + n + "\n")
		b.WriteString("random framework output " + n + "\n")
		b.WriteString("h:1:1 [0] NCCL INFO an unknown message " + n + "\n")
		b.WriteString("Last error:\n" + "some text the framework repeats " + n + "\n")
	}
	b.WriteString("h:1:1 [0] NCCL INFO " + strings.Repeat("y", maxLineBytes+10) + "\n")
	b.WriteString("h:1:1 [0] NCCL INFO " + strings.Repeat("z", 3*blockSize) + "\n")
	b.WriteString("h:9:9 [0] NCCL INFO NCCL version 2.28.9+cuda12.9")
	inputs := [][]byte{[]byte(b.String())}
	for _, f := range logs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	p := NewParser()
	var blocks []string // kept alive so that no kept string can reuse their memory
	p.onBlock = func(s string) { blocks = append(blocks, s) }
	for i, in := range inputs {
		if err := p.Parse(bytes.NewReader(in), "in"+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	l := p.Finish()
	if len(blocks) < len(inputs) || len(l.Procs) != maxProcs || l.Sources[0].CutLines != 2 {
		t.Fatalf("%d blocks, %d processes, %d cut lines: the input did not take the paths meant", len(blocks), len(l.Procs), l.Sources[0].CutLines)
	}
	type span struct{ lo, hi uintptr }
	var spans []span
	for _, s := range blocks {
		lo := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		spans = append(spans, span{lo, lo + uintptr(len(s))})
	}
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.String:
			s := v.String()
			if s == "" {
				return
			}
			at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
			for _, sp := range spans {
				if at >= sp.lo && at < sp.hi {
					t.Fatalf("%s = %.60q points into a block of input", path, s)
				}
			}
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem(), path)
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), path+"["+strconv.Itoa(i)+"]")
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Key(), path+"{key}")
				walk(it.Value(), path+"{value}")
			}
		}
	}
	walk(reflect.ValueOf(p), "Parser")
	walk(reflect.ValueOf(l), "Log")
}

// refParse frames lines as the reader did before it read in blocks (a
// 64 KiB bufio.Reader, one line at a time): the reference the block
// reader is held to.
func refParse(p *Parser, r io.Reader, name string) error {
	br := bufio.NewReaderSize(r, maxLineBytes)
	head, _ := br.Peek(8192)
	if err := checkText(head, name); err != nil {
		return err
	}
	src := Source{Name: name}
	p.prev, p.lastErrOn = nil, false
	var long []byte
	lineNo := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long) < maxLineBytes {
				long = append(long, chunk[:min(len(chunk), maxLineBytes-len(long))]...)
			}
			src.Bytes += int64(len(chunk))
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return &InputError{Name: name, Line: lineNo + 1, Msg: "read error: " + err.Error()}
		}
		if len(chunk) == 0 && len(long) == 0 {
			break
		}
		src.Bytes += int64(len(chunk))
		lineNo++
		text := string(chunk)
		if long != nil {
			if len(long) < maxLineBytes {
				long = append(long, chunk[:min(len(chunk), maxLineBytes-len(long))]...)
			} else {
				src.CutLines++
			}
			text, long = string(long), nil
		}
		if p.line(trimRightOf(text, "\r\n"), Loc{File: name, Line: lineNo}) {
			src.NCCLLines++
		}
		if err != nil {
			if !strings.HasSuffix(text, "\n") {
				src.Truncated = p.prev == nil || !p.prev.matched
			}
			break
		}
	}
	p.commitPrev()
	src.Lines = lineNo
	if src.Bytes == 0 {
		return &InputError{Name: name, Msg: "empty input: expected an NCCL log (NCCL_DEBUG=INFO output)"}
	}
	p.log.Sources = append(p.log.Sources, src)
	p.prev, p.prevBuf = nil, pending{}
	return nil
}

// chunkReader returns its data in pieces of the given sizes (cycled),
// then io.EOF, and fails with err after failAt bytes when err is set.
type chunkReader struct {
	data   []byte
	sizes  []int
	i      int
	failAt int
	err    error
}

func (c *chunkReader) Read(b []byte) (int, error) {
	if c.err != nil && c.failAt <= 0 {
		return 0, c.err
	}
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(b), len(c.data), c.sizes[c.i%len(c.sizes)])
	if c.err != nil {
		n = min(n, c.failAt)
		c.failAt -= n
	}
	c.i++
	copy(b, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestBlockFramingIsLineFraming: the block reader gives the Log (sources,
// counts, lines kept) the line-at-a-time reader gave, on inputs with long
// lines around the cut, carriage returns, blank lines, a missing final
// newline, readers that return small pieces, and read errors.
func TestBlockFramingIsLineFraming(t *testing.T) {
	pool := append(append([]string{"", "\r", "  ", "Last error:", "plain text", "NCCL_IB_HCA set to mlx5_0:1",
		"h:1:1 [0] NCCL INFO Enabled NCCL Func/Proto/Algo Matrix:", "    AllReduce |  1 2 1 | 0 1 0 0 0 0 0"},
		linePool...), opPool...)
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for range rapid.IntRange(0, 40).Draw(t, "lines") {
			switch rapid.IntRange(0, 29).Draw(t, "shape") {
			case 0:
				n := maxLineBytes + rapid.IntRange(-3, 3).Draw(t, "long")
				if rapid.IntRange(0, 3).Draw(t, "huge") == 0 {
					n = rapid.IntRange(blockSize-maxLineBytes, 2*blockSize).Draw(t, "hugeLen")
				}
				b.WriteString("h:1:1 [0] NCCL INFO ")
				b.WriteString(strings.Repeat("x", max(0, n-20)))
			default:
				b.WriteString(rapid.SampledFrom(pool).Draw(t, "line"))
			}
			if rapid.IntRange(0, 5).Draw(t, "cr") == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
		in := b.String()
		if rapid.Bool().Draw(t, "cutEnd") && len(in) > 0 {
			in = in[:rapid.IntRange(0, len(in)-1).Draw(t, "end")]
		}
		sizes := rapid.SliceOfN(rapid.IntRange(1, 3*maxLineBytes), 1, 4).Draw(t, "sizes")
		var rerr error
		failAt := 0
		if rapid.IntRange(0, 4).Draw(t, "fail") == 0 {
			rerr, failAt = errors.New("disk on fire"), rapid.IntRange(0, len(in)).Draw(t, "failAt")
		}
		want, got := NewParser(), NewParser()
		werr := refParse(want, &chunkReader{data: []byte(in), sizes: sizes, failAt: failAt, err: rerr}, "f")
		gerr := got.Parse(&chunkReader{data: []byte(in), sizes: sizes, failAt: failAt, err: rerr}, "f")
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("error %v, want %v", gerr, werr)
		}
		if d := cmp.Diff(want.Finish(), got.Finish()); d != "" {
			t.Fatalf("logs differ (-line at a time +blocks):\n%s", d)
		}
	})
}
