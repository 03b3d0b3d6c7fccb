package oracle

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one request line by default: an inline system object
// is a system file on one line, so it gets a system file's limit.
const MaxLineBytes = 16 << 20

// Serve answers the request lines of r on w, one answer line per request
// line, in order. Blank lines and lines starting with # are skipped. A line
// longer than maxLine (0: MaxLineBytes) gets an "invalid" answer naming its
// line number and the stream goes on; only a read or write error ends it.
// Each request is answered within the oracle's time budget (Timeout): one
// past it is answered "invalid" naming its line and the budget.
func (o *Oracle) Serve(r io.Reader, w io.Writer, maxLine int) error {
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriter(w)
	var werr error
	var p *Parallel
	p = NewParallel(o, o.Workers, func(a []byte) {
		if werr != nil {
			return
		}
		bw.Write(a)
		if werr = bw.WriteByte('\n'); werr == nil && p.Idle() {
			werr = bw.Flush() // answer before waiting for more input
		}
	})
	for n := 1; ; n++ {
		line, long, err := readLine(br, maxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			p.Close()
			bw.Flush()
			return fmt.Errorf("line %d: %w", n, err)
		}
		switch t := bytes.TrimSpace(line); {
		case long > 0:
			p.Answer(marshal(invalid(nil, "", "line %d: %d bytes: expected a request of at most %d bytes", n, long, maxLine)))
		case len(t) > 0 && t[0] != '#':
			p.SubmitLine(n, t)
		}
		if err != nil { // io.EOF after the last line
			break
		}
	}
	p.Close()
	if werr != nil {
		return werr
	}
	return bw.Flush()
}

// readLine reads one line without its newline. A line over max bytes is
// read to its end and dropped: long is then how many bytes it had.
func readLine(br *bufio.Reader, max int) (line []byte, long int, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		switch {
		case long > 0:
			long += n
		case len(buf)+n > max:
			long, buf = len(buf)+n, nil
		default:
			buf = append(buf, chunk[:n]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, long, err
		}
	}
}
