package ncclog

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

func mustParse(t *testing.T, text string) *Log {
	t.Helper()
	l, err := Parse(strings.NewReader(text), "t.log")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return l
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
	}{
		{"empty", "", "t.log: empty input: expected an NCCL log"},
		{"binary", "abc\x00def", "t.log: line 1: binary data (NUL byte at offset 3)"},
		{"binary-line-2", "ok\n\x00", "t.log: line 2: binary data"},
		{"controls", strings.Repeat("\x01\x02\x03\x04", 40), "t.log: binary data (160 control bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in), "t.log")
			var ie *InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Parse(%q) error = %v, want an *InputError starting %q", tc.in, err, tc.want)
			}
		})
	}
	_, err := Parse(strings.NewReader("just some text\nand more\n"), "t.log")
	if !errors.Is(err, ErrNoNCCL) || !strings.HasPrefix(err.Error(), "t.log: no NCCL log line") {
		t.Errorf("a text file without NCCL lines: error %v, want ErrNoNCCL naming the file", err)
	}
}

func TestParseAggregates(t *testing.T) {
	log := `ds-ml-01-0:17754:17754 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>
ds-ml-01-0:17754:17754 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).
ds-ml-01-0:17754:17754 [0] NCCL INFO NET/IB : No device found.
ds-ml-01-0:17754:17754 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>
NCCL version 2.4.8+cuda10.1
ds-ml-01-0:17755:17755 [1] NCCL INFO NET/IB : No device found.
ds-ml-01-0:17755:17755 [1] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo
ds-ml-01-0:17755:17755 [1] NCCL INFO NCCL_IB_DISABLE set by environment to 0.
ds-ml-01-0:17754:17765 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC
ds-ml-01-0:17754:17765 [0] NCCL INFO Ring 01 : 0[0] -> 1[1] via P2P/IPC
ds-ml-01-0:17754:17765 [0] NCCL INFO comm 0x7f rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE
`
	l := mustParse(t, log)
	if l.Version != "2.4.8+cuda10.1" || l.Release != spec.MakeVersion(2, 4, 8) || l.VersionAt.Line != 5 {
		t.Errorf("version %q %v at %v", l.Version, l.Release, l.VersionAt)
	}
	if len(l.Procs) != 2 || l.Ranks() != 2 {
		t.Errorf("procs %d ranks %d, want 2 and 2", len(l.Procs), l.Ranks())
	}
	if e, ok := l.EnvValue("NCCL_IB_DISABLE"); !ok || e.Value != "0" || e.At.Line != 8 {
		t.Errorf("NCCL_IB_DISABLE = %+v %v, want value 0 (trailing '.' of %%lld. removed) at line 8", e, ok)
	}
	if e, _ := l.EnvValue("NCCL_SOCKET_IFNAME"); e.Value != "lo" {
		t.Errorf("NCCL_SOCKET_IFNAME = %q", e.Value)
	}
	if l.IB.NoDevice != 2 || len(l.Sockets) != 1 || l.Sockets[0] != "lo" {
		t.Errorf("ib %+v sockets %v", l.IB, l.Sockets)
	}
	if len(l.Plugin.NotFound) != 1 || l.Plugin.NotFound[0] != "libnccl-net.so" {
		t.Errorf("plugin not found %v", l.Plugin.NotFound)
	}
	if len(l.Transports) != 1 || l.Transports[0].Detail != "P2P/IPC" || l.Transports[0].Count != 2 {
		t.Errorf("transports %+v", l.Transports)
	}
	if l.InitCompleted != 1 || len(l.Comms) != 1 || !l.Comms[0].Complete || l.Comms[0].NRanks != 2 {
		t.Errorf("init %d comms %+v", l.InitCompleted, l.Comms)
	}
	if l.Count(KindIBNoDevice) != 2 || len(l.SamplesOf(KindIBNoDevice)) != 2 {
		t.Errorf("kind counts %v", l.Kinds)
	}
}

func TestParseContinuations(t *testing.T) {
	log := `h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to allreduce:nvls
h:1:1 [0] NCCL INFO Enabled NCCL Func/Proto/Algo Matrix:
     Function |       LL     LL128    Simple   |          Tree           Ring  CollNetDirect   CollNetChain           NVLS       NVLSTree            PAT  
    Broadcast |        1         2         1   |             1              1              1              1              1              1              1  
       Reduce |        1         2         1   |             1              1              1              1              1              1              1  
    AllGather |        1         2         1   |             1              1              1              1              1              1              1  
ReduceScatter |        1         2         1   |             1              1              1              1              1              1              1  
    AllReduce |        1         2         1   |             0              0              0              0              1              0              0  

h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0
>
h:1:1 [0] NCCL INFO NVLS multicast support is
 available on dev 0
h:1:2 [0] transport/nvls.cc:300 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'x'.
This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.
Do not force-enable NVLS (NCCL_NVLS_ENABLE=1) if you wish to avoid this error in the future.
h:1:1 [0] NCCL INFO Using network IB`
	l := mustParse(t, log)
	if l.Matrix == nil || l.Matrix.Rows != 5 || l.Matrix.Algo[spec.AllReduce][spec.NVLS] != 1 || l.Matrix.Algo[spec.AllReduce][spec.Ring] != 0 ||
		l.Matrix.Algo[spec.Broadcast][spec.Ring] != 1 || l.Matrix.Proto[spec.AllReduce][spec.LL128] != 2 {
		t.Errorf("matrix %+v", l.Matrix)
	}
	if len(l.IB.Devices) != 2 {
		t.Errorf("IB devices %v (a line cut after '<0' is still an IB line)", l.IB.Devices)
	}
	if l.NVLS.AvailableDevs != 1 || l.Joined < 3 {
		t.Errorf("a wrapped 'available' line must be joined: nvls %+v joined %d", l.NVLS, l.Joined)
	}
	if l.Count(KindNVLSBindFail) != 1 || l.Unparsed != 1 {
		t.Errorf("multi-line WARN: bind lines %d, unparsed %d (only the '>' debris)", l.Count(KindNVLSBindFail), l.Unparsed)
	}
	if l.Truncated() {
		t.Errorf("log without final newline reported %v", l.Sources)
	}
}

func TestParseTuningTables(t *testing.T) {
	newTable := `h:1:1 [0] NCCL INFO   Algorithm   |                   Tree                |                   Ring                |          CollNetDirect                |
h:1:1 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
h:1:1 [0] NCCL INFO  Max NThreads |            512 |            640 |            512 |            512 |            640 |            512 |              0 |              0 |            640 |
h:1:1 [0] NCCL INFO     Broadcast |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     9.3/   5.0 |    18.0/   0.0 |    22.4/  20.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
h:1:1 [0] NCCL INFO     AllReduce |    25.2/   0.0 |    48.5/   0.0 |   448.0/   0.0 |    43.4/   2.7 |    79.4/  10.1 |    27.6/  20.0 |     9.4/   0.0 |     9.4/   0.0 |    10.7/  44.0 |
h:1:1 [0] NCCL INFO   Algorithm   |           CollNetChain                |                   NVLS                |               NVLSTree                |
h:1:1 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
h:1:1 [0] NCCL INFO     AllReduce |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |    23.0/ 300.5 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
h:1:1 [0] NCCL INFO   Algorithm   |                    PAT                |
h:1:1 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
h:1:1 [0] NCCL INFO     AllGather |     0.0/   0.0 |     0.0/   0.0 |    12.0/  11.5 |
`
	l := mustParse(t, newTable)
	if len(l.Tables) != 1 {
		t.Fatalf("tables %d, want 1 (blocks of one table)", len(l.Tables))
	}
	tb := &l.Tables[0]
	for _, c := range []struct {
		f  spec.Func
		a  spec.Algo
		p  spec.Proto
		bw float64
	}{{spec.Broadcast, spec.Ring, spec.Simple, 20}, {spec.AllReduce, spec.CollNetDirect, spec.Simple, 44}, {spec.AllReduce, spec.NVLS, spec.Simple, 300.5},
		{spec.AllGather, spec.PAT, spec.Simple, 11.5}, {spec.AllReduce, spec.Ring, spec.LL128, 10.1}} {
		got, ok := tb.Cell(c.f, c.a, c.p)
		if !ok || got.Bw != c.bw {
			t.Errorf("cell %v/%v/%v = %+v %v, want bw %v", c.f, c.a, c.p, got, ok, c.bw)
		}
	}
	if tb.MaxThreads[spec.Ring][spec.LL128] != 640 {
		t.Errorf("max threads %v", tb.MaxThreads)
	}
	old := `h:1:1 [0] NCCL INFO Latency/AlgBw |    Tree/    LL |    Tree/ LL128 |    Tree/Simple |    Ring/    LL |    Ring/ LL128 |    Ring/Simple | CollNet/    LL | CollNet/ LL128 | CollNet/Simple |
h:1:1 [0] NCCL INFO  Max NThreads |            512 |            640 |            512 |            512 |            640 |            512 |            512 |            640 |            512 |
h:1:1 [0] NCCL INFO     AllReduce |    14.4/   0.0 |    21.4/   0.0 |    56.0/   0.1 |     9.0/   0.0 |    18.0/   0.0 |    27.6/   0.1 |     9.4/   0.0 |     9.4/   0.0 |    10.7/   0.0 |
`
	l = mustParse(t, old)
	if len(l.Tables) != 1 {
		t.Fatalf("old-format tables %d", len(l.Tables))
	}
	if c, ok := l.Tables[0].Cell(spec.AllReduce, spec.Tree, spec.Simple); !ok || c.Bw != 0.1 || c.Lat != 56 {
		t.Errorf("old format Tree/Simple = %+v", c)
	}
	if c, ok := l.Tables[0].Cell(spec.AllReduce, spec.CollNetDirect, spec.Simple); !ok || c.Lat != 10.7 {
		t.Errorf("old format CollNet column = %+v %v (2.6-2.13 'CollNet' is CollNetDirect)", c, ok)
	}
}

func TestParseOpsAndCalls(t *testing.T) {
	log := `h:1:5 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count 262144 datatype 7 op 0 root 0 comm 0x5 [nranks=16] stream 0x6
h:1:5 [0] NCCL INFO 1048576 Bytes -> Algo 1 proto 2 time 50.000000
h:1:5 [0] NCCL INFO AllGather: 4194304 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}
h:1:5 [0] NCCL INFO AllGather: 4194304 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}
h:1:5 [0] NCCL INFO 64 Bytes -> Algo 0 proto 0 time 5.000000
h:1:5 [0] enqueue.cc:1000 NCCL WARN Error : no algorithm/protocol available for function ReduceScatter with datatype ncclInt8. NCCL_ALGO was set to NVLS.
`
	l := mustParse(t, log)
	if len(l.Ops) != 3 {
		t.Fatalf("ops %+v", l.Ops)
	}
	a := l.Ops[0]
	if !a.FuncKnown || a.Func != spec.AllReduce || a.Algo != spec.Ring || a.Proto != spec.Simple || !a.DTypeKnow || a.DType != spec.Float32 {
		t.Errorf("numeric op with call line: %+v", a)
	}
	b := l.Ops[1]
	if b.Func != spec.AllGather || b.Algo != spec.NVLS || b.ChannelHi != 15 || b.Count != 2 {
		t.Errorf("named op %+v", b)
	}
	if c := l.Ops[2]; c.FuncKnown {
		t.Errorf("a numeric line whose bytes do not match the call must stay unnamed: %+v", c)
	}
	if len(l.NoAlgo) != 1 || l.NoAlgo[0].Func != "ReduceScatter" || l.NoAlgo[0].AlgoEnv != "NVLS" {
		t.Errorf("no-algo %+v", l.NoAlgo)
	}
	if len(l.Errors) != 1 || !l.Errors[0].HasResult || l.Errors[0].Result != spec.InvalidUsage {
		t.Errorf("errors %+v", l.Errors)
	}
}

func TestParseFrameworkAndBare(t *testing.T) {
	log := `238: [rank238]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3353, internal error - please report this issue to the NCCL developers, NCCL version 2.26.2
238: [rank238]: ncclInternalError: Internal check failed.
238: [rank238]: Last error:
238: [rank238]: Error : no algorithm/protocol available for function AllGather with datatype ncclInt8.
Last error:
Cuda failure 802 'system not yet initialized'
Last error:
something NCCL did not format
`
	l := mustParse(t, log)
	if l.Version != "2.26.2" || l.Release != spec.MakeVersion(2, 26, 2) {
		t.Errorf("version from the framework line: %q", l.Version)
	}
	if len(l.NoAlgo) != 1 || l.NoAlgo[0].DType != "ncclInt8" {
		t.Errorf("bare WARN after launcher prefixes: %+v", l.NoAlgo)
	}
	kinds := map[string]int{}
	for _, e := range l.Errors {
		kinds[e.Kind]++
	}
	if kinds["framework.error"] != 1 || kinds["framework.result"] != 1 || kinds["cuda.failure"] != 1 || kinds["framework.lasterror"] != 1 {
		t.Errorf("error kinds %v", kinds)
	}
	if l.Unparsed != 0 {
		t.Errorf("unparsed %d %v", l.Unparsed, l.UnparsedSamples)
	}
}

func TestParseMultipleSourcesAndTruncation(t *testing.T) {
	p := NewParser()
	if err := p.Parse(strings.NewReader("a:1:1 [0] NCCL INFO Using network IB\n"), "rank0.log"); err != nil {
		t.Fatal(err)
	}
	if err := p.Parse(strings.NewReader("b:2:2 [0] NCCL INFO Using network IB\nb:2:2 [0] NCCL INFO NET/IB : Usi"), "rank1.log"); err != nil {
		t.Fatal(err)
	}
	l := p.Finish()
	if len(l.Sources) != 2 || l.Sources[1].Lines != 2 || !l.Sources[1].Truncated || l.Sources[0].Truncated {
		t.Errorf("sources %+v", l.Sources)
	}
	if len(l.Networks) != 1 || l.Networks[0].Count != 2 || l.Networks[0].At.File != "rank0.log" {
		t.Errorf("networks %+v", l.Networks)
	}
	if !l.Truncated() {
		t.Error("Truncated() false")
	}
}

func TestParseLongLine(t *testing.T) {
	long := "h:1:1 [0] NCCL INFO Trees" + strings.Repeat(" [0] 1/-1/-1->0->-1", 20000) + "\nh:1:1 [0] NCCL INFO Using network IB\n"
	l := mustParse(t, long)
	if l.Sources[0].CutLines != 1 || l.Count(KindUsingNetwork) != 1 || l.Count(KindTrees) != 1 {
		t.Errorf("cut %d kinds %v", l.Sources[0].CutLines, l.Kinds)
	}
}

// TestBoundedMemory pins the bound: distinct operation lines beyond the
// limit are counted, not kept.
func TestBoundedMemory(t *testing.T) {
	var b bytes.Buffer
	for i := range maxDistinctOps + 500 {
		fmt.Fprintf(&b, "h:1:1 [0] NCCL INFO AllReduce: %d Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..3}\n", 8*(i+1))
	}
	l := mustParse(t, b.String())
	if len(l.Ops) != maxDistinctOps || l.OpsDropped != 500 {
		t.Errorf("ops kept %d dropped %d", len(l.Ops), l.OpsDropped)
	}
	if len(l.SamplesOf(KindOpChoice)) != maxSamplesPerKind {
		t.Errorf("samples %d", len(l.SamplesOf(KindOpChoice)))
	}
}

// TestParseTableWithoutAlgorithmRow: a paste that starts at the "Protocol"
// row still yields a table, its columns in NCCL's algorithm index order and
// marked Inferred.
func TestParseTableWithoutAlgorithmRow(t *testing.T) {
	log := `h:1:1 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
h:1:1 [0] NCCL INFO     AllGather |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |    23.3/   5.3 |    44.6/   0.0 |    70.0/  21.3 |     5.6/   0.0 |     5.6/   0.0 |    44.0/   0.0 |
h:1:1 [0] NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
h:1:1 [0] NCCL INFO     AllReduce |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |    23.0/ 300.5 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
`
	l := mustParse(t, log)
	if len(l.Tables) != 1 || !l.Tables[0].Inferred {
		t.Fatalf("tables %+v", l.Tables)
	}
	if c, ok := l.Tables[0].Cell(spec.AllGather, spec.Ring, spec.Simple); !ok || c.Bw != 21.3 {
		t.Errorf("block 0 column 5 = %+v %v, want Ring/Simple 21.3", c, ok)
	}
	if c, ok := l.Tables[0].Cell(spec.AllReduce, spec.NVLS, spec.Simple); !ok || c.Bw != 300.5 {
		t.Errorf("block 1 column 5 = %+v %v, want NVLS/Simple 300.5", c, ok)
	}
}

// A garbage line early in an interleaved log used to set the release (the
// first version line won); NCCL's prefixed line wins now, and the bare
// lines do not make a version mismatch.
func TestVersionFromGarbageLines(t *testing.T) {
	in := strings.Join([]string{
		"junk NCCL version 9.99.99 junk",
		"NCCL version 2.99.1",
		"vm:2054:2059 [0] NCCL INFO NCCL version 2.28.9+cuda13.0",
		"NCCL version 2.1.1",
		"vm:2054:2060 [1] NCCL INFO NCCL version 2.28.9+cuda13.0",
	}, "\n") + "\n"
	l, err := Parse(strings.NewReader(in), "mixed.log")
	if err != nil {
		t.Fatal(err)
	}
	if l.Release != spec.V2_28_9 || l.Version != "2.28.9+cuda13.0" {
		t.Errorf("release %v (%q), want 2.28.9 from the prefixed line", l.Release, l.Version)
	}
	if len(l.Versions) != 1 {
		t.Errorf("versions %v: the bare lines count as a mismatch", l.Versions)
	}
	// with bare lines only, the first one that parses is taken
	l, err = Parse(strings.NewReader("NCCL version 9.99.99\nNCCL version 2.22.3\n"), "bare.log")
	if err != nil {
		t.Fatal(err)
	}
	if l.Release != spec.V2_22_3 {
		t.Errorf("bare lines only: release %v, want 2.22.3", l.Release)
	}
}

// errKey is the expression 0x[0-9a-fA-F]+|<\d+> replaced by "#", written
// by hand for speed: it must agree with the expression on any text.
func TestErrKeyIsTheExpression(t *testing.T) {
	re := regexp.MustCompile(`0x[0-9a-fA-F]+|<\d+>`)
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{"0", "x", "0x", "f", "G", "<", ">", "1", "9", " ", "<12>", "0xdead", "a", "é"})).Draw(t, "parts")
		msg := strings.Join(parts, "")
		if got, want := errKey(msg), re.ReplaceAllString(msg, "#"); got != want {
			t.Fatalf("errKey(%q) = %q, the expression gives %q", msg, got, want)
		}
	})
}

func TestAtoiStrictIsAtoi(t *testing.T) {
	same := func(t interface{ Errorf(string, ...any) }, s string) {
		n, ok := atoiStrict(s)
		m, err := strconv.Atoi(s)
		if ok != (err == nil) || ok && n != m {
			t.Errorf("atoiStrict(%q) = %d, %v; Atoi gives %d, %v", s, n, ok, m, err)
		}
	}
	for _, s := range []string{"", "0", "12", "+3", "-4", "+", "-", "node1", "1a", "99999999999999999999999", " 1", "007",
		"999999999999999999", "1000000000000000000", "9223372036854775807", "9223372036854775808", "-9223372036854775808"} {
		same(t, s)
	}
	rapid.Check(t, func(t *rapid.T) {
		same(t, rapid.StringMatching(`[+-]?[0-9]{0,21}x?`).Draw(t, "s"))
	})
}

// The name tables the reader looks up first agree with the spec's parsers.
func TestLogNamesAgreeWithSpec(t *testing.T) {
	for s, f := range logFuncs {
		if g, err := spec.ParseFunc(s); err != nil || g != f {
			t.Errorf("%q: table %v, spec.ParseFunc %v %v", s, f, g, err)
		}
	}
	for s, a := range logAlgos {
		if g, err := spec.ParseAlgo(s); err != nil || g != a {
			t.Errorf("%q: table %v, spec.ParseAlgo %v %v", s, a, g, err)
		}
	}
	for s, p := range logProtos {
		if g, err := spec.ParseProto(s); err != nil || g != p {
			t.Errorf("%q: table %v, spec.ParseProto %v %v", s, p, g, err)
		}
	}
	if len(logFuncs) < int(spec.NumFuncs) || len(logAlgos) < spec.NumAlgos || len(logProtos) < spec.NumProtos {
		t.Errorf("tables too small: %d %d %d", len(logFuncs), len(logAlgos), len(logProtos))
	}
}

// TestParseEnvTooLow: envConfigOverride's "is too low, leaving it set at"
// (NCCL_MIN_CTAS/NCCL_MAX_CTAS from 2.25.1, NCCL_NCHANNELS_PER_NET_PEER
// from 2.28.3) marks the variable ignored, after the "set by environment"
// line of the same value or alone; the observed G-ENV-PARAM-1 verdict
// fails, and the value still reaches the environment spec replays.
func TestParseEnvTooLow(t *testing.T) {
	const lowLine = "NCCL_NCHANNELS_PER_NET_PEER 0 is too low, leaving it set at -2147483648"
	const low = "h:1:1 [0] NCCL INFO " + lowLine + "\n"
	for _, tc := range []struct {
		name, log, value, how, line string
	}{
		{"after the param line", "h:1:1 [0] NCCL INFO NCCL_NCHANNELS_PER_NET_PEER set by environment to 0.\n" + low, "0", "ignored", lowLine},
		{"alone", low, "0", "ignored", lowLine},
		{"ctas", "h:1:1 [0] NCCL INFO NCCL_MAX_CTAS -4 is too low, leaving it set at 32\n", "-4", "ignored", "NCCL_MAX_CTAS -4 is too low, leaving it set at 32"},
		{"read, not ignored", "h:1:1 [0] NCCL INFO NCCL_NCHANNELS_PER_NET_PEER set by environment to 4.\n", "4", "env", "NCCL_NCHANNELS_PER_NET_PEER set by environment to 4"},
	} {
		l := mustParse(t, tc.log)
		if len(l.Env) != 1 {
			t.Fatalf("%s: %d env records, want 1: %+v", tc.name, len(l.Env), l.Env)
		}
		e := l.Env[0]
		if e.Value != tc.value || e.How != tc.how {
			t.Errorf("%s: %s=%q how %q, want %q how %q", tc.name, e.Name, e.Value, e.How, tc.value, tc.how)
		}
		o := Observe(l)
		if v, _ := o.Env.Lookup(e.Name); v != tc.value {
			t.Errorf("%s: observed env %s=%q, want %q", tc.name, e.Name, v, tc.value)
		}
		var got *spec.Verdict
		for i := range o.Trace {
			if o.Trace[i].Rule == "G-ENV-PARAM-1" {
				got = &o.Trace[i]
			}
		}
		if want := map[bool]spec.Outcome{true: spec.Fail, false: spec.Info}[tc.how == "ignored"]; got == nil || got.Outcome != want {
			t.Errorf("%s: G-ENV-PARAM-1 %+v, want %s", tc.name, got, want)
		}
		// the verdict's log line is the one that says so, as NCCL printed it
		if got != nil && (len(got.Log) != 1 || got.Log[0] != tc.line) {
			t.Errorf("%s: G-ENV-PARAM-1 log %q, want %q", tc.name, got.Log, tc.line)
		}
	}
}

// TestParseMLOPartWarns: 2.30.7's MLOPart WARNs are recognised forms
// (ncclNvlsInit's multi-rank NVLS refusal, ncclTopoAddGpuSub's index and
// ncclTopoCheckMloPartBusId's bus id check), each an error of its own
// kind rather than an unknown WARN.
func TestParseMLOPartWarns(t *testing.T) {
	for _, tc := range []struct{ line, kind string }{
		{`node1:1:2 [0] NCCL WARN NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same NVML device. This is not compatible with NCCL_NVLS_ENABLE=1.`, "nvls.multirank"},
		{`node1:1:2 [0] NCCL WARN MLOPart index 2 out of range (max 1)`, "topo.mlopart.index"},
		{`node1:1:2 [0] NCCL WARN BusId 0x90001 has non-zero bits in MLOPart mask 0x3, cannot encode MLOPart partition index without collision`, "topo.mlopart.busid"},
	} {
		l, err := Parse(strings.NewReader(tc.line+"\n"), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Errors) != 1 || l.Errors[0].Kind != tc.kind || len(l.UnknownSamples) != 0 {
			t.Errorf("%s: errors %+v, unknown %v: want one error of kind %s", tc.kind, l.Errors, l.UnknownSamples, tc.kind)
		}
	}
}

// TestParseDupGPUWarns: the several-ranks-on-one-GPU WARNs of each
// release (G-DEV-DUP-1: initTransportsRank up to 2.29.7, ncclCheckMultiRank
// at 2.30.3–2.30.4, the UUID check from 2.30.7) are errors of their own
// kind, and ncclCheckMultiRank's INFO lines are recognised, not unknown.
func TestParseDupGPUWarns(t *testing.T) {
	for _, tc := range []struct{ line, kind string }{
		{`node1:1:2 [0] NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 90000`, "init.dupgpu"},
		{`node1:1:2 [0] NCCL WARN Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.`, "init.multirank"},
		{`node1:1:2 [0] NCCL WARN Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to "1". At this time multiple ranks per gpu is incompatible with NVLS.`, "init.multirank.nvls"},
		{`node1:1:2 [0] NCCL WARN Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.`, "init.multirank.uuid"},
	} {
		l, err := Parse(strings.NewReader(tc.line+"\n"), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Errors) != 1 || l.Errors[0].Kind != tc.kind || len(l.UnknownSamples) != 0 {
			t.Errorf("%s: errors %+v, unknown %v: want one error of kind %s", tc.kind, l.Errors, l.UnknownSamples, tc.kind)
		}
	}
	for _, line := range []string{
		`node1:1:2 [0] NCCL INFO Detected ranks 0 and 1 sharing GPU with bus 90000 on this node`,
		`node1:1:2 [0] NCCL INFO Multiple ranks on the same GPU detected and allowed. Disabling NVLS.`,
	} {
		l, err := Parse(strings.NewReader(line+"\n"), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Errors) != 0 || len(l.UnknownSamples) != 0 {
			t.Errorf("%s: errors %+v, unknown %v: want a recognised INFO line", line, l.Errors, l.UnknownSamples)
		}
	}
}

// TestParseOFIProvider: aws-ofi-nccl's provider line in both its forms
// (up to 1.13.x, and "provider is %s, fabric is %s" from 1.14.0), as
// the public g5 (1.12.1-aws) and g6e (1.16.2) logs print it.
func TestParseOFIProvider(t *testing.T) {
	for _, tc := range []struct {
		line     string
		provider string
		nics     int
	}{
		{"NET/OFI Selected Provider is efa (found 1 nics)", "efa", 1},
		{"NET/OFI Selected provider is efa, fabric is efa (found 4 nics)", "efa", 4},
		{"NET/OFI Selected provider is tcp, fabric is 172.31.0.0/16 (found 2 nics)", "tcp", 2},
	} {
		l := mustParse(t, "h:1:2 [0] NCCL INFO "+tc.line+"\n")
		if l.Plugin.OFIProvider != tc.provider || l.Plugin.OFINICs != tc.nics || l.Count(KindOFIProvider) != 1 {
			t.Errorf("%q: provider %q, %d NICs (kind %d); want %q, %d", tc.line, l.Plugin.OFIProvider, l.Plugin.OFINICs, l.Count(KindOFIProvider), tc.provider, tc.nics)
		}
	}
}
