package ncclog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// FuzzParse: any input either is rejected with an *InputError or parses;
// parsing never panics, counts stay consistent, the observation's levels
// are on the ladder, and parsing is deterministic.
func FuzzParse(f *testing.F) {
	for _, s := range linePool {
		f.Add([]byte(s + "\n"))
	}
	f.Add([]byte(strings.Join(opPool, "\n")))
	f.Add([]byte("h:1:1 [0] NCCL INFO Enabled NCCL Func/Proto/Algo Matrix:\n    AllReduce |  1 2 1 | 0 1 0 0 0 0 0\n\n"))
	f.Add([]byte("238: [rank238]: Last error:\n238: [rank238]: Error : no algorithm/protocol available for function AllGather with datatype ncclInt8.\n"))
	f.Add([]byte("h:1:1 [0] NCCL INFO   Algorithm   |   Tree  |\nh:1:1 [0] NCCL INFO     AllReduce |  1.0/ 2.0 | 3/4 |\n"))
	f.Add([]byte{0, 1, 2})
	// envConfigOverride's other lines (G-ENV-CONFIG-1) and a refused
	// CollNet group's error returns (G-COLLNET-SETUP-1), whose reading
	// asks spec for the release's lines
	f.Add([]byte("h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO NCCL_GRAPH_MIXING_SUPPORT 7 is not valid, leaving it set at 2\n" +
		"h:1:1 [0] NCCL INFO maxCTAs 99999999999 is larger than #channels upper limit 64, cap it to 64\nh:1:1 [0] NCCL INFO NCCL_CGA_CLUSTER_SIZE value -9 is too big. Limiting value to 8.\n"))
	f.Add([]byte("h:1:1 [0] NCCL INFO NCCL version 2.30.7+cuda13.0\nh:1:1 [0] NCCL INFO transport.cc:431 (ncclTransportCollNetSetup) -> 2\n" +
		"h:1:1 [0] transport.cc:464 (ncclTransportCollNetCheck) NCCL WARN Cannot initialize CollNet, using point-to-point network instead\n" +
		"h:1:1 [0] NCCL INFO transport/coll_net.cc:1811 (ncclCollNetSetup) -> 2\n"))
	// the two [Symmetric] shapes (2.27 without nWorks, 2.28+ with) and
	// lines just past their bounds
	f.Add([]byte("h:1:1 [0] NCCL INFO AllReduce [Symmetric]: 1048576 Bytes -> Kernel AllReduce_AGxLL_R nchannels 8 nthreads 512\n"))
	f.Add([]byte("h:1:1 [0] NCCL INFO AllGather [Symmetric]: 16777216 Bytes -> Kernel AllGather_STMC nchannels 16 nthreads 512 nWorks 4\n"))
	f.Add([]byte("h:1:1 [0] NCCL INFO AllReduce [Symmetric]: 99999999999999999999 Bytes -> Kernel K nchannels 1234567 nthreads 1 nWorks 1\n"))
	// registration lines of each path, one cut short, one with a size past int64
	f.Add([]byte("h:1:1 [0] NCCL INFO rank 0 - IPC register buffer 0x7f00 size 8388608 (baseAddr 0x7f00 totalSize 8388608 numSegments 1) to peer 1 regAddr 0x7e00 offsetOut 0\n" +
		"h:1:1 [0] NCCL INFO rank 0 - COLLNET failed to register userbuff 0x7f00, buffSize 99999999999999999999, type Recv, GDR 0\n" +
		"h:1:1 [0] NCCL INFO rank 0 successfully registered NVLS sendbuff (nil), recvbuff 0x7f00, sendbuff size 0, recvbuff size 4096, reg sendbuff (nil), reg recvbuff 0x7e00\n" +
		"h:1:1 [0] NCCL INFO rank 0 failed to NET register userbuff 0x7f00 buffSize\n"))
	// a garbage line naming a release before the real one (diagnose used to
	// take 9.99.99 from it)
	f.Add([]byte("junk NCCL version 9.99.99\nNCCL version 2.99.1\nh:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := NewParser()
		if err := p.Parse(bytes.NewReader(data), "fuzz"); err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Fatalf("error %T %v is not an *InputError", err, err)
			}
			return
		}
		l := p.Finish()
		if l.NCCLLines > l.Lines || l.Unparsed > l.Lines || l.Blank > l.Lines {
			t.Fatalf("counts: lines %d nccl %d unparsed %d blank %d", l.Lines, l.NCCLLines, l.Unparsed, l.Blank)
		}
		o := Observe(l)
		for _, c := range o.Caps {
			if c.Level < spec.LevelNone || c.Level > spec.LevelExecuted {
				t.Fatalf("%s level %d off the ladder", c.Cap, c.Level)
			}
		}
		p2 := NewParser()
		if err := p2.Parse(bytes.NewReader(data), "fuzz"); err != nil {
			t.Fatalf("second parse failed: %v", err)
		}
		l2 := p2.Finish()
		if l2.Lines != l.Lines || l2.NCCLLines != l.NCCLLines || len(l2.Ops) != len(l.Ops) || len(l2.Errors) != len(l.Errors) {
			t.Fatal("parsing is not deterministic")
		}
	})
}

// FuzzParseLine: ParseLine never panics and the message it returns is the
// end of the line it was given.
func FuzzParseLine(f *testing.F) {
	for _, s := range linePool {
		f.Add(s)
	}
	f.Add("[1,3]<stdout>:h:1:2 [3] a.cc:1 (fn) NCCL WARN x")
	f.Add(":1:2 [0] NCCL TRACE")
	f.Fuzz(func(t *testing.T, s string) {
		ln, ok := ParseLine(s)
		if !ok {
			return
		}
		if ln.Msg != "" && !strings.Contains(s, ln.Msg) {
			t.Fatalf("message %q is not part of %q", ln.Msg, s)
		}
		if ln.Dev < -1 && ln.Dev != ln.Dev {
			t.Fatal("unreachable")
		}
	})
}

// FuzzParseCanonical: wherever the one-pass reader of the common INFO line
// answers, it gives what the general reader gives.
func FuzzParseCanonical(f *testing.F) {
	for _, s := range append(append([]string{}, linePool...), opPool...) {
		f.Add(s)
	}
	for _, s := range []string{
		"node1:12:13 [0] NCCL INFO Using network IB",
		"node1:12:13 [7] NCCL INFO",
		"node1:12:13 [7] NCCL INFO\tx  ",
		"node1:12:13 [7] NCCL INFOX y",
		"node1:12:13 [7] NCCL INFO   Algorithm   |",
		"node1:12:13 [7] NCCL INFO x [repeated 3x across cluster]",
		"h:0012:+3 [1] NCCL INFO x",
		"[1,0]<stdout>:node1:12:13 [0] NCCL INFO x",
		"node1:1234567890123456789:1 [0] NCCL INFO x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = trimRightOf(s, "\r\n")
		fast, ok := parseCanonical(s)
		if !ok {
			return
		}
		gen, gok := parseLineGeneral(s)
		if !gok || fast != gen {
			t.Fatalf("%q:\none pass %+v\ngeneral  %+v (%v)", s, fast, gen, gok)
		}
	})
}
