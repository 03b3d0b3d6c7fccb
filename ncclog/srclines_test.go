package ncclog

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// The embedded table covers exactly the modelled releases and answers the
// locations the public TensorRT-LLM #953 log prints (its README checks
// them against the tags by hand).
func TestSourceLines(t *testing.T) {
	s, err := LoadSourceLines()
	if err != nil {
		t.Fatal(err)
	}
	v := spec.MakeVersion
	r2_18 := []spec.Version{v(2, 18, 3), v(2, 18, 5), v(2, 18, 6)}
	for _, tc := range []struct {
		file  string
		line  int
		want  []spec.Version
		known bool
	}{
		{"enqueue.cc", 1182, r2_18, true},
		{"enqueue.cc", 1283, r2_18, true},
		{"group.cc", 130, r2_18, true},
		{"enqueue.cc", 569, append([]spec.Version{v(2, 18, 1)}, r2_18...), true},
		{"src/enqueue.cc", 1182, r2_18, true},
		{"/opt/nccl/src/enqueue.cc", 1182, r2_18, true},
		{"enqueue.cc", 1, nil, true}, // the licence header
		{"nccl_ofi_net.c", 10, nil, false},
		// a file under a directory, by its path and by its base name
		{"transport/net.cc", 0, nil, true},
		{"net.cc", 0, nil, true},
	} {
		got, known := s.Releases(tc.file, tc.line)
		if known != tc.known || !slices.Equal(got, tc.want) {
			t.Errorf("Releases(%s, %d) = %v, %v; want %v, %v", tc.file, tc.line, got, known, tc.want, tc.known)
		}
	}
}

// PrintedAt reads the location of a WARN and of an error return, and none
// of any other line.
func TestPrintedAt(t *testing.T) {
	l, err := Parse(strings.NewReader(
		"h:1:1 [3] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion with error 12\n"+
			"h:1:1 [3] NCCL INFO transport/net.cc:1008 -> 6\n"+
			"h:1:1 [3] NCCL INFO group.cc:65 -> 3 [Async thread]\n"+
			"h:1:1 [0] NCCL INFO Using network IB\n"), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range l.Errors {
		if f, n, ok := e.PrintedAt(); ok {
			got = append(got, f+":"+strconv.Itoa(n))
		}
	}
	want := []string{"transport/net_ib.cc:1295", "transport/net.cc:1008", "group.cc:65"}
	if !slices.Equal(got, want) {
		t.Errorf("PrintedAt: %v, want %v", got, want)
	}
}

// From 2.30.7 NCCL prints the function after file:line on its WARN and
// NCCLCHECK lines (NVIDIA/nccl#2332's two lines, as posted): both are read,
// and a location then counts only at the releases that print it in that
// shape (v2.30.7-1 src/debug.cc ncclDebugLogV, src/include/debug.h
// INFO_LOC_FN).
func TestPrintingWithFunc(t *testing.T) {
	s, err := LoadSourceLines()
	if err != nil {
		t.Fatal(err)
	}
	v2_29_7, v2_30_7 := spec.MakeVersion(2, 29, 7), spec.MakeVersion(2, 30, 7)
	for _, tc := range []struct {
		name, log string
		loc       string
		res       spec.Result
		want      []spec.Version
	}{
		{"WARN with its function", "[1] nccl/src/register/register.cc:42 (ncclRegister) NCCL WARN Cuda failure 500 'named symbol not found'\n",
			"nccl/src/register/register.cc:42", spec.UnhandledCudaError, []spec.Version{v2_30_7}},
		{"trace with its function", "[1] NCCL INFO nccl/src/register/register.cc:161 (ncclCommRegister) -> 1\n",
			"nccl/src/register/register.cc:161", spec.UnhandledCudaError, []spec.Version{v2_30_7}},
		{"async trace", "h:1:1 [0] NCCL INFO group.cc:79 (ncclAsyncJobMain) -> 3 [Async thread]\n",
			"group.cc:79", spec.InternalError, []spec.Version{v2_30_7}},
		// register.cc:42 prints at 2.29.7 too, without a function there
		{"WARN without one", "h:1:1 [1] register/register.cc:42 NCCL WARN Cuda failure 500 'named symbol not found'\n",
			"register/register.cc:42", spec.UnhandledCudaError, []spec.Version{v2_29_7}},
		// init.cc:185 is an NCCLCHECK at 2.30.7 only, which prints it with
		// ncclGetUniqueId: without the function no release prints it
		{"2.30.7 location without the function", "h:1:1 [3] NCCL INFO init.cc:185 -> 3\n",
			"init.cc:185", spec.InternalError, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Parse(strings.NewReader(tc.log), "x.log")
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Errors) != 1 || len(l.UnknownSamples) != 0 {
				t.Fatalf("errors %+v, unknown %v: want the one line read as an error", l.Errors, l.UnknownSamples)
			}
			e := l.Errors[0]
			if f, n, ok := e.PrintedAt(); !ok || f+":"+strconv.Itoa(n) != tc.loc {
				t.Errorf("PrintedAt %s:%d %v, want %s", f, n, ok, tc.loc)
			}
			if !e.HasResult || e.Result != tc.res {
				t.Errorf("result %v (%v), want %v", e.Result, e.HasResult, tc.res)
			}
			rels, known, ok := s.Printing(e)
			if !ok || !known || !slices.Equal(rels, tc.want) {
				t.Errorf("Printing = %v, %v, %v; want %v", rels, known, ok, tc.want)
			}
		})
	}
}

// funcPrefix is the catalogue's 2.30.7 form, the release range Printing
// reads.
func TestFuncPrefixForm(t *testing.T) {
	if funcPrefix.ID != "err.trace.func" || funcPrefix.Since != spec.MakeVersion(2, 30, 7) || funcPrefix.Until != 0 {
		t.Errorf("funcPrefix %s %v..%v, want err.trace.func from 2.30.7", funcPrefix.ID, funcPrefix.Since, funcPrefix.Until)
	}
}

func TestParseSourceLinesErrors(t *testing.T) {
	rels := []spec.Version{spec.MakeVersion(2, 18, 1), spec.MakeVersion(2, 18, 3)}
	head := "tags\tv2.18.1-1\tv2.18.3-1\n"
	for _, tc := range []struct{ name, data, err string }{
		{"no tags", "# x\n", "no tags row"},
		{"file first", "a.cc\t1:1\n" + head, "before the tags row"},
		{"fewer tags", "tags\tv2.18.1-1\n", "1 tags, 2 modelled releases"},
		{"other tag", "tags\tv2.18.1-1\tv2.18.5-1\n", "tag 1 is 2.18.5"},
		{"bad tag", "tags\tv2.18.1-1\t2.18.3\n", "bad tag"},
		{"bad step", head + "a.cc\t0:1\n", "bad line step"},
		{"bad mask", head + "a.cc\t3:4\n", "bad release mask"},
		{"no first mask", head + "a.cc\t3\n", "first entry without a mask"},
		{"file twice", head + "a.cc\t3:1\na.cc\t4:1\n", "expected a new file name"},
	} {
		_, err := parseSourceLines(tc.data, rels)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
		}
	}
	s, err := parseSourceLines(head+"a.cc\t3:2\t4\t2:3\n", rels)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[int]int{3: 1, 7: 1, 9: 2, 8: 0} {
		if got, _ := s.Releases("a.cc", line); len(got) != want {
			t.Errorf("a.cc:%d: %v, want %d release(s)", line, got, want)
		}
	}
}
