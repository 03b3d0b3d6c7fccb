package tuner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ChildArg is the hidden subcommand that makes a gatesim binary serve as a
// tuner child (cmd/gatesim dispatches it to Serve).
const ChildArg = "__tuner-child"

// DefaultTimeout bounds one call into the tuner.
const DefaultTimeout = 10 * time.Second

// Options say how the child is started.
type Options struct {
	// Command is the child's command line; empty: this executable with
	// ChildArg.
	Command []string
	// Timeout bounds each call (0: DefaultTimeout).
	Timeout time.Duration
}

// Failure is a tuner call that did not come back: the child crashed,
// hung past the time limit or could not start.
type Failure struct {
	Call string // open, init, getCollInfo, finalize
	Kind string // "crashed", "hung", "exited", "start"
	Msg  string
}

func (f *Failure) Error() string {
	return fmt.Sprintf("%s during %s: %s", f.Kind, f.Call, f.Msg)
}

// child is one running tuner child process.
type child struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	lines   chan []byte
	stderr  *bytes.Buffer
	timeout time.Duration
	dead    error
	once    sync.Once
	// answered: the child has answered once (it is running).
	answered bool
}

// startAllowance is added to the first call's limit: starting the child
// (this executable) on a loaded machine can take seconds.
const startAllowance = 20 * time.Second

func startChild(opt Options) (*child, error) {
	argv := opt.Command
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, &Failure{Call: "open", Kind: "start", Msg: err.Error()}
		}
		argv = []string{exe, ChildArg}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, &Failure{Call: "open", Kind: "start", Msg: err.Error()}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &Failure{Call: "open", Kind: "start", Msg: err.Error()}
	}
	stderr := &bytes.Buffer{}
	cmd.Stderr = &limitedWriter{w: stderr, n: 16 << 10}
	if err := cmd.Start(); err != nil {
		return nil, &Failure{Call: "open", Kind: "start", Msg: err.Error()}
	}
	c := &child{cmd: cmd, in: in, lines: make(chan []byte), stderr: stderr, timeout: opt.Timeout}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	go func() {
		r := bufio.NewReaderSize(out, 1<<16)
		for {
			line, err := readLine(r)
			if err != nil {
				close(c.lines)
				return
			}
			c.lines <- line
		}
	}()
	return c, nil
}

// readLine reads one line of at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		part, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		buf = append(buf, part...)
		if len(buf) > maxLine {
			return nil, errors.New("line too long")
		}
		if !isPrefix {
			return buf, nil
		}
	}
}

// call sends one request and waits for its answer within the time limit.
// A child that dies or hangs is killed and the call fails with a Failure.
func (c *child) call(name string, req request) (response, error) {
	var resp response
	if c.dead != nil {
		return resp, c.dead
	}
	b, _ := json.Marshal(req)
	b = append(b, '\n')
	if _, err := c.in.Write(b); err != nil {
		return resp, c.fail(name, "", err)
	}
	limit := c.timeout
	if !c.answered {
		// the first answer also waits for the process to start, which
		// is not the plugin's time
		limit += startAllowance
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case line, ok := <-c.lines:
		if !ok {
			return resp, c.fail(name, "", nil)
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return resp, c.fail(name, "exited", fmt.Errorf("unreadable answer: %v", err))
		}
		c.answered = true
		return resp, nil
	case <-t.C:
		return resp, c.fail(name, "hung", fmt.Errorf("no answer within %s", limit))
	}
}

// fail kills the child, waits for it and records why it is gone.
func (c *child) fail(call, kind string, cause error) error {
	c.once.Do(func() {
		if kind == "hung" {
			_ = c.cmd.Process.Kill()
		}
		_ = c.in.Close()
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		var werr error
		select {
		case werr = <-done:
		case <-time.After(2 * time.Second):
			_ = c.cmd.Process.Kill()
			werr = <-done
		}
		go func() { // a late answer must not block the reader
			for range c.lines {
			}
		}()
		f := &Failure{Call: call, Kind: kind}
		if st := c.cmd.ProcessState; st != nil && kind == "" {
			f.Kind = "exited"
			if ws := st.String(); strings.HasPrefix(ws, "signal:") {
				f.Kind = "crashed"
			}
			f.Msg = st.String()
		}
		if f.Msg == "" && cause != nil {
			f.Msg = cause.Error()
		} else if f.Msg == "" && werr != nil {
			f.Msg = werr.Error()
		}
		if s := strings.TrimSpace(c.stderr.String()); s != "" && f.Kind != "hung" {
			f.Msg += " (stderr: " + lastLine(s) + ")"
		}
		c.dead = f
	})
	return c.dead
}

// close ends the child: stdin closed, then it exits on EOF.
func (c *child) close() {
	if c.dead != nil {
		return
	}
	_ = c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(c.timeout):
		_ = c.cmd.Process.Kill()
		<-done
	}
	c.dead = errors.New("tuner child closed")
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// ServeIfChild makes the running binary a tuner child when it was started
// with ChildArg (by startChild): it serves stdin and exits. Otherwise it
// returns. cmd/gatesim and test binaries call it first thing.
func ServeIfChild() {
	if len(os.Args) < 2 || os.Args[1] != ChildArg {
		return
	}
	if err := Serve(os.Stdin, protocolOut()); err != nil {
		fmt.Fprintln(os.Stderr, "tuner child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
