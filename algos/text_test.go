package algos

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// TestParseErrors checks that malformed text gives an error naming the
// input, the line and what was expected.
func TestParseErrors(t *testing.T) {
	lines, with := goldenEdit(t, "ring_allreduce_simple.txt")
	parseFails(t, []parseFailCase{
		{"empty", "", "x.txt:0: empty input"},
		{"magic", "hello\n", "x.txt:1: expected \"gatesim-schedule v1\""},
		{"version", with(1, "nccl 3.0"), "x.txt:2: bad NCCL version"},
		{"func", with(2, "op AllFoo ncclFloat32 ncclSum count=1 root=0 inplace=false"), "x.txt:3: unknown collective"},
		{"count", with(2, "op AllReduce ncclFloat32 ncclSum count=-4 root=0 inplace=false"), "x.txt:3: count=\"-4\""},
		{"comm", with(4, "comm ranks=5 nodes=1 local=4 channels=2 groups=1"), "x.txt:5: ranks=5 nodes=1 local=4"},
		{"prim", with(8, "  0 frobnicate n=1"), "x.txt:9: unknown primitive"},
		{"index", with(8, "  7 send n=1"), "x.txt:9: step index \"7\": expected 0"},
		{"chunk", with(8, "  0 send n=2048 src=in@x+2048 send=r1 pre direct"), "x.txt:9: chunk \"in@x+2048\""},
		{"peer", with(8, "  0 send n=2048 src=in@6144+2048 send=q1 pre direct"), "x.txt:9: bad peer \"q1\""},
		{"dep", with(9, strings.Replace(lines[9], "dep=r3.c0.g0.0", "dep=r2.c0.g0.0", 1)), "x.txt:10: dep=r2.c0.g0.0 but the programs make this step wait for r3.c0.g0.0"},
		{"unmatched", with(8, "  0 send n=2048 src=in@6144+2048 send=r2 pre direct"), "waits for data that is never sent"},
		{"range", with(8, "  0 send n=2048 src=in@8000+2048 send=r1 pre direct"), "outside the 8192-unit in buffer"},
		{"patfield", with(8, "  0 send n=2048 src=in@6144+2048 send=r1 acc"), "only for patReduce and patCopy"},
	})
}

// goldenEdit reads a schedule golden and returns its lines and a copy of
// it with line i replaced.
func goldenEdit(t *testing.T, name string) ([]string, func(i int, line string) string) {
	t.Helper()
	good, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	return lines, func(i int, line string) string {
		l := append([]string(nil), lines...)
		l[i] = line
		return strings.Join(l, "\n")
	}
}

// parseFailCase is a schedule text Parse must refuse with an error that
// contains want.
type parseFailCase struct{ name, text, want string }

func parseFails(t *testing.T, cases []parseFailCase) {
	t.Helper()
	for _, tc := range cases {
		_, err := Parse(strings.NewReader(tc.text), "x.txt")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestParseCollNetErrors: the rail views and network endpoint operations of
// CollNet AllGather/ReduceScatter are checked like everything else: bad
// syntax, an endpoint whose operation does not fit the messages, slices
// that do not add up to the reduced window, a rail view that leaves the
// rail space.
func TestParseCollNetErrors(t *testing.T) {
	_, with := goldenEdit(t, "collnetdirect_reducescatter.txt")
	parseFails(t, []parseFailCase{
		{"rail syntax", with(12, "  0 scatter n=8192 pieces=in@lx:0+8192 send=r1/1 pre"), "x.txt:13: chunk \"in@lx:0+8192\""},
		{"rail local", with(12, "  0 scatter n=8192 pieces=in@l2:0+8192 send=r1/1 pre"), "a rail view needs a local rank below 2"},
		{"rail range", with(12, "  0 scatter n=8192 pieces=in@l1:6000+8192 send=r1/1 pre"), "in@l1:6000+8192 outside the 12000-unit rail view (2 nodes × 6000)"},
		{"unknown op", with(7, "endpoint c0 net0 senders=r0,r2 receivers=r0,r2 op=alltoall"), "x.txt:8: endpoint op \"alltoall\""},
		{"op key", with(7, "endpoint c0 net0 senders=r0,r2 receivers=r0,r2 mode=reducescatter"), "x.txt:8: field \"mode=reducescatter\""},
		{"reduce instead of scatter", with(7, "endpoint c0 net0 senders=r0,r2 receivers=r0,r2"), "receives 6000 elements from net0 but r0.c0.g1.0 sent 8192"},
		{"gather instead of scatter", with(7, "endpoint c0 net0 senders=r0,r2 receivers=r0,r2 op=allgather"), "receives 6000 elements from net0, which gathers 16384"},
		{"slices", with(16, "  0 recv n=5999 dst=out@0+5999 recv=net0 post"), "the receivers of net0 take 8191 elements of message 0, which reduces 8192"},
	})
	// only network endpoints gather or scatter
	nv, _ := goldenEdit(t, "nvls_sharp_allgather.txt")
	bad := strings.Replace(strings.Join(nv, "\n"), "endpoint c0 mcast0.0 senders=r0 receivers=r0,r1", "endpoint c0 mcast0.0 senders=r0 receivers=r0,r1 op=allgather", 1)
	parseFails(t, []parseFailCase{{"op on a multicast endpoint", bad, "only a network endpoint"}})
}

// TestFormatParseRoundTrip checks Format(Parse(Format(s))) == Format(s)
// for random schedules of every generator.
func TestFormatParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sh := rapid.SampledFrom(algostest.Shapes).Draw(t, "shape")
		c := rapid.SampledFrom(algostest.Cases).Draw(t, "case")
		if !algostest.Fits(c.Algo, sh) {
			t.Skip("algorithm does not fit the shape")
		}
		f := rapid.SampledFrom(c.Funcs).Draw(t, "func")
		p := rapid.SampledFrom(c.Proto).Draw(t, "proto")
		count := rapid.Int64Range(0, 5000).Draw(t, "count")
		inPlace := rapid.Bool().Draw(t, "inplace")
		l, err := DefaultLayout(spec.V2_28_9, sh.Nodes, sh.LocalRanks, sh.Channels)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels = sh.Channels
		s, err := Build(spec.Op{Func: f, Count: count, DataType: spec.Bfloat16, RedOp: spec.Max, Root: 0}, Selection{Algo: c.Algo, Proto: p, NChannels: sh.Channels}, l, Options{InPlace: inPlace})
		if err != nil {
			t.Fatal(err)
		}
		var a bytes.Buffer
		if err := s.Format(&a); err != nil {
			t.Fatal(err)
		}
		q, err := Parse(bytes.NewReader(a.Bytes()), "random")
		if err != nil {
			t.Fatalf("%v\n%s", err, a.String())
		}
		var b bytes.Buffer
		if err := q.Format(&b); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Fatalf("round trip differs (-first +second):\n%s", goldenfile.Diff(a.String(), b.String()))
		}
	})
}

// FuzzParse feeds arbitrary text to the parser: it must return a schedule
// or an error, never panic, and whatever parses must format and parse
// back to the same text.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.txt"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(textMagic + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		var a bytes.Buffer
		if err := s.Format(&a); err != nil {
			t.Fatalf("a parsed schedule does not format: %v", err)
		}
		q, err := Parse(bytes.NewReader(a.Bytes()), "fuzz-formatted")
		if err != nil {
			t.Fatalf("formatted schedule does not parse: %v\n%s", err, a.String())
		}
		var b bytes.Buffer
		if err := q.Format(&b); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Fatalf("not a fixed point (-first +second):\n%s", goldenfile.Diff(a.String(), b.String()))
		}
	})
}
