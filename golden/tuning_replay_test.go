package golden

// Replay of real NCCL runs against spec's tuning model: a capture directory
// holds NCCL's debug log (NCCL_DEBUG=INFO with at least TUNING; INIT, ENV
// and GRAPH help), optionally NCCL's graph dump (NCCL_GRAPH_DUMP_FILE) and
// topology dump (NCCL_TOPO_DUMP_FILE), and optionally tuning-capture.json for
// facts the log does not print. The replay rebuilds the communicator's
// TuningInput from them, runs the model and compares the printed table
// (cell by cell), the threadThresholds line and every per-operation line.
//
// The log is read by ncclog, the product's reader: the same facts
// diagnose and hw check see. The graph and topology dumps are read by the
// small XML helpers below (only the attributes the tuning model takes).
//
// Point it at captures with GATESIM_TUNING_CAPTURES=dir1:dir2 (each a
// capture or a tree of captures); by default it reads testdata/captured.
// The public captures under spec/testdata/tuning/public always run.

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// tuningLogFacts is what the replay takes from a log, as ncclog read it.
type tuningLogFacts struct {
	release      spec.Version
	cudaRuntime  int // 13000 for +cuda13.0
	nRanks       int
	nNodes       int
	localRanks   int
	nChannels    int
	nvlsChannels int
	env          map[string]string
	matrix       *tuning.EnableMatrix // the printed "Enabled NCCL Func/Proto/Algo Matrix"
	matrixAlgos  int
	graphs       []*topo.Graph       // [GRAPH] "Pattern ..." lines, first seen first
	table        *ncclog.TuningTable // the first printed [TUNING] table
	thresholds   string              // "threadThresholds ..."
	ops          []ncclog.OpChoice   // per-op lines naming their function (2.23.4+)
	opsDropped   int
	noAlgo       []ncclog.NoAlgo // "no algorithm/protocol available" WARNs naming a function
	r22Lines     int             // per-op lines without a function name (2.22.3): not replayed
}

// tuningFactsOf picks the tuning model's inputs and outputs out of a log.
func tuningFactsOf(l *ncclog.Log) *tuningLogFacts {
	f := &tuningLogFacts{release: l.Release, env: map[string]string{}, opsDropped: l.OpsDropped}
	if _, cuda, ok := strings.Cut(l.Version, "+cuda"); ok {
		maj, mnr, _ := strings.Cut(cuda, ".")
		a, err1 := strconv.Atoi(maj)
		b, err2 := strconv.Atoi(strings.TrimRightFunc(mnr, func(r rune) bool { return r < '0' || r > '9' }))
		if err1 == nil && err2 == nil {
			f.cudaRuntime = a*1000 + b*10
		}
	}
	for _, c := range l.Comms {
		if c.Rank == 0 && c.NRanks > 0 {
			f.nRanks, f.nNodes, f.localRanks = c.NRanks, c.NNodes, c.LocalRanks
		}
	}
	if n := len(l.Channels); n > 0 {
		cs := l.Channels[n-1]
		f.nChannels = cs.Coll
		if cs.HasNVLS {
			f.nvlsChannels = cs.NVLS
		}
	}
	for _, e := range l.Env {
		f.env[e.Name] = e.Value
	}
	if mx := l.Matrix; mx != nil {
		f.matrix = &tuning.EnableMatrix{Algo: mx.Algo, Proto: mx.Proto}
		f.matrixAlgos = len(mx.Algos)
	}
	for _, g := range l.Graphs {
		ti, err1 := topo.ParsePathType(g.TypeIntra)
		te, err2 := topo.ParsePathType(g.TypeInter)
		if err1 != nil || err2 != nil {
			continue
		}
		f.graphs = append(f.graphs, &topo.Graph{Pattern: topo.Pattern(g.Pattern), CrossNic: g.CrossNic, NChannels: g.NChannels,
			BwIntra: float32(g.BwIntra), BwInter: float32(g.BwInter), TypeIntra: ti, TypeInter: te, SameChannels: g.SameChannels == 1})
	}
	if len(l.Tables) > 0 {
		f.table = &l.Tables[0]
	}
	if s, ok := l.First(ncclog.KindThreadThresholds); ok {
		f.thresholds = s.Msg
	}
	for _, o := range l.Ops {
		switch {
		case o.Trace:
		case o.FuncKnown && strings.HasPrefix(o.First.Msg, o.Func.String()+": "):
			f.ops = append(f.ops, o)
		default:
			f.r22Lines += o.Count
		}
	}
	for _, na := range l.NoAlgo {
		if na.Detailed && !na.FromTrace {
			f.noAlgo = append(f.noAlgo, na)
		}
	}
	return f
}

// tableOf reads table lines (the model's TableLines) with ncclog, as if
// NCCL had printed them.
func tableOf(lines []string) (*ncclog.TuningTable, error) {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("model:1:1 [0] NCCL INFO " + l + "\n")
	}
	l, err := ncclog.Parse(strings.NewReader(b.String()), "model")
	if err != nil {
		return nil, err
	}
	if len(l.Tables) == 0 {
		return nil, fmt.Errorf("no table read from %d lines", len(lines))
	}
	return &l.Tables[0], nil
}

// compareTables counts the cells (and max-threads entries) either table
// has, and those that agree.
func compareTables(res *tuningReplayResult, got, want *ncclog.TuningTable) {
	for f := range spec.NumFuncs {
		for a := range spec.NumAlgos {
			for p := range spec.NumProtos {
				g, w := got.Cells[f][a][p], want.Cells[f][a][p]
				if !g.Set && !w.Set {
					continue
				}
				res.tableLines++
				if g == w {
					res.tableAgree++
				} else {
					res.mismatches = append(res.mismatches, fmt.Sprintf("table %s %s/%s: got %+v, logged %+v",
						spec.Func(f), spec.Algo(a), spec.Proto(p), g, w))
				}
			}
		}
	}
	if got.MaxThreads != want.MaxThreads {
		res.mismatches = append(res.mismatches, fmt.Sprintf("max threads: got %v, logged %v", got.MaxThreads, want.MaxThreads))
	}
}

type tuningGraphXML struct {
	XMLName xml.Name `xml:"graphs"`
	Graphs  []struct {
		ID           int     `xml:"id,attr"`
		Pattern      int     `xml:"pattern,attr"`
		CrossNic     int     `xml:"crossnic,attr"`
		NChannels    int     `xml:"nchannels,attr"`
		SpeedIntra   float32 `xml:"speedintra,attr"`
		SpeedInter   float32 `xml:"speedinter,attr"`
		LatencyInter float32 `xml:"latencyinter,attr"`
		TypeIntra    string  `xml:"typeintra,attr"`
		TypeInter    string  `xml:"typeinter,attr"`
		SameChannels int     `xml:"samechannels,attr"`
	} `xml:"graph"`
}

// parseTuningGraphDump reads a graph dump into graphs by id (0 ring, 1 tree,
// 2 CollNet chain, 3 CollNet direct, 4 NVLS).
func parseTuningGraphDump(name string, data []byte) (map[int]*topo.Graph, error) {
	var x tuningGraphXML
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%s: %v: expected NCCL's <graphs> XML", name, err)
	}
	out := map[int]*topo.Graph{}
	for i, g := range x.Graphs {
		ti, err1 := topo.ParsePathType(g.TypeIntra)
		te, err2 := topo.ParsePathType(g.TypeInter)
		if err1 != nil || err2 != nil || g.NChannels < 0 || g.ID < 0 || g.ID > 4 {
			return nil, fmt.Errorf("%s: graph %d: id %d typeintra %q typeinter %q nchannels %d: expected id 0-4, path types such as NVL and a channel count", name, i, g.ID, g.TypeIntra, g.TypeInter, g.NChannels)
		}
		out[g.ID] = &topo.Graph{ID: g.ID, Pattern: topo.Pattern(g.Pattern), CrossNic: g.CrossNic, NChannels: g.NChannels,
			BwIntra: g.SpeedIntra, BwInter: g.SpeedInter, LatencyInter: g.LatencyInter, TypeIntra: ti, TypeInter: te,
			SameChannels: g.SameChannels == 1}
	}
	return out, nil
}

var (
	reTuningTopoSM   = regexp.MustCompile(`<gpu [^>]*\bsm="(\d+)"`)
	reTuningTopoCPU  = regexp.MustCompile(`<cpu [^>]*\barch="([^"]*)"[^>]*\bvendor="([^"]*)"`)
	reTuningTopoNVS  = regexp.MustCompile(`tclass="0x068000"`)
	tuningVendorCPUs = map[string]string{"GenuineIntel": "Intel", "AuthenticAMD": "AMD", "CentaurHauls": "Zhaoxin", "  Shanghai  ": "Zhaoxin"}
)

// tuningCaptureJSON is tuning-capture.json: facts a log does not print.
type tuningCaptureJSON struct {
	Release string `json:"release"`
	Edits   []struct {
		Path  string `json:"path"`
		Value string `json:"value"`
		Ref   string `json:"ref"`
	} `json:"edits"`
	NRanks, NNodes, LocalRanks, MinCompCap, MaxCompCap, NChannels, NVLSChannels int
	CPUArch, CPUVendor                                                          string
	NVSwitch, CollNetEnable                                                     bool
	DataType                                                                    string `json:"dtype"`
	Graphs                                                                      map[string]struct {
		Pattern, NChannels   int
		BwIntra, BwInter     float32
		TypeIntra, TypeInter string
		SameChannels         bool
	} `json:"graphs"`
}

// tuningReplayResult counts agreement for one capture.
type tuningReplayResult struct {
	dir string
	// tableLines counts the table cells either side has (the name is the
	// figure's: one per printed latency/bandwidth pair).
	tableLines, tableAgree int
	opLines, opAgree       int
	skipped                []string
	mismatches             []string
}

// replayTuningCapture replays one capture directory.
func replayTuningCapture(dir string) (*tuningReplayResult, error) {
	res := &tuningReplayResult{dir: dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var facts *tuningLogFacts
	var graphs map[int]*topo.Graph
	var topoXML []byte
	var cj tuningCaptureJSON
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		switch {
		case e.Name() == "tuning-capture.json":
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&cj); err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
		case bytes.Contains(data, []byte("<graphs")):
			if graphs, err = parseTuningGraphDump(p, data); err != nil {
				return nil, err
			}
		case bytes.Contains(data, []byte("<system")):
			topoXML = data
		case bytes.Contains(data, []byte("NCCL INFO")):
			l, err := ncclog.Parse(bytes.NewReader(data), p)
			if err != nil {
				return nil, err
			}
			if f := tuningFactsOf(l); f.table != nil && (facts == nil || facts.table == nil) {
				facts = f
			}
		}
	}
	if facts == nil || facts.table == nil {
		return nil, nil // not a capture with a tuning table
	}

	// The release and its Tuning, with any documented edits.
	v := facts.release
	if cj.Release != "" {
		if v, err = spec.ParseVersion(cj.Release); err != nil {
			return nil, fmt.Errorf("%s/tuning-capture.json: %v", dir, err)
		}
	}
	rs, err := spec.Load(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v (set \"release\" and \"edits\" in tuning-capture.json for an unmodelled release)", dir, err)
	}
	tu := rs.Tuning
	for _, e := range cj.Edits {
		if err := tu.SetPath(e.Path, e.Value); err != nil {
			return nil, fmt.Errorf("%s/tuning-capture.json: %v", dir, err)
		}
	}

	// The communicator: log facts first, the JSON for what the log lacks.
	pick := func(a, b int) int {
		if a != 0 {
			return a
		}
		return b
	}
	in := tuning.Input{
		NRanks: pick(facts.nRanks, cj.NRanks), NNodes: pick(facts.nNodes, cj.NNodes),
		LocalRanks: pick(facts.localRanks, cj.LocalRanks), MinCompCap: cj.MinCompCap, MaxCompCap: cj.MaxCompCap,
		CUDARuntime: facts.cudaRuntime, NChannels: pick(facts.nChannels, cj.NChannels),
		NVLSChannels: pick(facts.nvlsChannels, cj.NVLSChannels), NVSwitch: cj.NVSwitch, CollNetEnable: cj.CollNetEnable,
		Enable: tuning.DefaultEnable(),
	}
	in.MaxLocalRanks = in.LocalRanks
	arch, vendor := cj.CPUArch, cj.CPUVendor
	if topoXML != nil {
		if m := reTuningTopoSM.FindAllSubmatch(topoXML, -1); len(m) > 0 {
			for i, s := range m {
				sm, _ := strconv.Atoi(string(s[1]))
				if i == 0 || sm < in.MinCompCap {
					in.MinCompCap = sm
				}
				if sm > in.MaxCompCap {
					in.MaxCompCap = sm
				}
			}
		}
		if m := reTuningTopoCPU.FindSubmatch(topoXML); m != nil {
			arch, vendor = string(m[1]), string(m[2])
			if v, ok := tuningVendorCPUs[vendor]; ok {
				vendor = v
			}
		}
		in.NVSwitch = in.NVSwitch || reTuningTopoNVS.Match(topoXML)
	}
	in.CPUArch, in.CPUVendor = tuning.CPUOf(arch, vendor)

	// Graphs: the dump, else the [GRAPH] lines (ring first, then tree), else the JSON.
	var ring, tree, chain, direct, nvls *topo.Graph
	switch {
	case graphs != nil:
		ring, tree, chain, direct, nvls = graphs[0], graphs[1], graphs[2], graphs[3], graphs[4]
	case len(facts.graphs) >= 2:
		ring, tree = facts.graphs[0], facts.graphs[1]
		for _, g := range facts.graphs[2:] {
			if g.Pattern == topo.PatternNVLS {
				nvls = g
			}
		}
	default:
		get := func(k string) *topo.Graph {
			g, ok := cj.Graphs[k]
			if !ok {
				return nil
			}
			ti, _ := topo.ParsePathType(g.TypeIntra)
			te, _ := topo.ParsePathType(g.TypeInter)
			return &topo.Graph{Pattern: topo.Pattern(g.Pattern), NChannels: g.NChannels, BwIntra: g.BwIntra, BwInter: g.BwInter,
				TypeIntra: ti, TypeInter: te, SameChannels: g.SameChannels}
		}
		ring, tree, chain, direct, nvls = get("ring"), get("tree"), get("collNetChain"), get("collNetDirect"), get("nvls")
	}
	in.Graphs = tuning.Graphs(ring, tree, chain, direct, nvls)
	if tree != nil {
		in.MaxTreePattern = tree.Pattern
	}
	in.NVLSSupport = in.NVLSChannels > 0

	// The environment NCCL printed.
	if s, ok := facts.env["NCCL_ALGO"]; ok {
		in.Algo = &s
	}
	if s, ok := facts.env["NCCL_PROTO"]; ok {
		in.Proto = &s
	}
	if s, ok := facts.env["NCCL_THREAD_THRESHOLDS"]; ok {
		in.ThreadThresholds = &s
	}
	for name, dst := range map[string]**int64{"NCCL_NTHREADS": &in.NThreads, "NCCL_LL128_NTHREADS": &in.LL128NThreads,
		"NCCL_NET_OVERHEAD": &in.NetOverhead, "NCCL_LL128_C2C": &in.LL128C2C, "NCCL_PAT_ENABLE": &in.PATEnable} {
		if s, ok := facts.env[name]; ok {
			if x, err := strconv.ParseInt(s, 10, 64); err == nil {
				*dst = &x
			}
		}
	}
	if in.Algo != nil || in.Proto != nil {
		if facts.matrix == nil || facts.matrixAlgos != tu.NumAlgos {
			res.skipped = append(res.skipped, "NCCL_ALGO/NCCL_PROTO set but no enable matrix printed (needs the lead's parser): table not replayed")
			return res, nil
		}
		in.Enable = *facts.matrix
	}

	m, err := tuning.BuildModel(in, tu)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	// The model's table goes through the same reader as the log's, so the
	// cells compare as NCCL printed them (rounded to its columns).
	got, err := tableOf(m.TableLines())
	if err != nil {
		return nil, fmt.Errorf("%s: the model's own table: %v", dir, err)
	}
	compareTables(res, got, facts.table)
	if facts.thresholds != "" && facts.thresholds != m.ThreadThresholdsLine() {
		res.mismatches = append(res.mismatches, fmt.Sprintf("got %q, logged %q", m.ThreadThresholdsLine(), facts.thresholds))
	}
	dt := spec.Float32
	if cj.DataType != "" {
		if dt, err = spec.ParseDataType(cj.DataType); err != nil {
			return nil, fmt.Errorf("%s/tuning-capture.json: %v", dir, err)
		}
	}
	for _, o := range facts.ops {
		l, fn, bytes := o.First.Msg, o.Func, o.Bytes
		t := dt
		if bytes%int64(t.Size()) != 0 {
			t = spec.Int8
		}
		res.opLines += o.Count
		op, err := spec.OpFromBytes(fn, bytes, t, spec.Sum, 0)
		if err != nil {
			return nil, err
		}
		c, err := tuning.ChooseOp(m, tuning.Call{Op: op, NVLSOK: in.NVLSSupport, CollNetOK: in.CollNetEnable})
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", dir, l, err)
		}
		if c.Line == l {
			res.opAgree += o.Count
		} else {
			res.mismatches = append(res.mismatches, fmt.Sprintf("per-op:\n   got  %q\n   want %q", c.Line, l))
		}
	}
	for _, na := range facts.noAlgo {
		w := na.First.Msg
		fn, err := spec.ParseFunc(na.Func)
		if err != nil || int(fn) >= spec.NumFuncs {
			continue
		}
		t := spec.Float32
		if d, err := spec.ParseDataType(na.DType); err == nil {
			t = d
		} else if na.DType == "Unknown" {
			t = spec.Uint8
		}
		if fn == spec.AllGather || fn == spec.Broadcast {
			t = spec.Int8 // NCCL converts them to bytes before deciding
		}
		res.opLines += na.Count
		c, err := tuning.ChooseOp(m, tuning.Call{Op: spec.Op{Func: fn, Count: 1 << 18, DataType: t}, NVLSOK: in.NVLSSupport, CollNetOK: in.CollNetEnable})
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", dir, w, err)
		}
		if c.Warn == w {
			res.opAgree += na.Count
		} else {
			res.mismatches = append(res.mismatches, fmt.Sprintf("no-algorithm WARN:\n   got  %q\n   want %q", c.Warn, w))
		}
	}
	if facts.opsDropped > 0 {
		res.skipped = append(res.skipped, fmt.Sprintf("%d per-op lines past the reader's bound on distinct lines not replayed", facts.opsDropped))
	}
	if facts.r22Lines > 0 {
		res.skipped = append(res.skipped, fmt.Sprintf("%d per-op lines in 2.22.3 format (no function name) not replayed", facts.r22Lines))
	}
	return res, nil
}

// tuningCaptureDirs lists the directories under roots that contain files.
func tuningCaptureDirs(roots []string) []string {
	var dirs []string
	for _, r := range roots {
		_ = filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
	}
	sort.Strings(dirs)
	return dirs
}

func runTuningReplay(t *testing.T, roots []string) (total tuningReplayResult, n int) {
	for _, dir := range tuningCaptureDirs(roots) {
		res, err := replayTuningCapture(dir)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if res == nil {
			continue
		}
		n++
		t.Logf("%s: table %d/%d cells agree, per-op %d/%d agree%s", dir, res.tableAgree, res.tableLines, res.opAgree, res.opLines,
			strings.Join(append([]string{""}, res.skipped...), "; skipped: "))
		for _, m := range res.mismatches {
			t.Errorf("%s: %s", dir, m)
		}
		total.tableLines += res.tableLines
		total.tableAgree += res.tableAgree
		total.opLines += res.opLines
		total.opAgree += res.opAgree
	}
	return total, n
}

// TestTuningReplayPublic replays the public logs kept under
// testdata/tuning/public (see PROVENANCE.md there).
func TestTuningReplayPublic(t *testing.T) {
	total, n := runTuningReplay(t, []string{filepath.Join("..", "spec", "testdata", "tuning", "public")})
	if n == 0 || total.tableLines == 0 || total.opLines == 0 {
		t.Fatalf("no public capture replayed (%d captures, %d table lines, %d per-op lines)", n, total.tableLines, total.opLines)
	}
	t.Logf("public: %d captures, table %d/%d cells, per-op %d/%d", n, total.tableAgree, total.tableLines, total.opAgree, total.opLines)
}

// TestTuningReplayCaptures replays real captures (GATESIM_TUNING_CAPTURES, or
// ../golden/testdata/captured when it exists).
func TestTuningReplayCaptures(t *testing.T) {
	roots := filepath.SplitList(os.Getenv("GATESIM_TUNING_CAPTURES"))
	if len(roots) == 0 {
		def := filepath.Join("testdata", "captured")
		if _, err := os.Stat(def); err != nil {
			t.Fatalf("no captures at %s: the committed captures are missing (or set GATESIM_TUNING_CAPTURES)", def)
		}
		roots = []string{def}
	}
	total, n := runTuningReplay(t, roots)
	if n == 0 {
		t.Fatalf("no capture with a [TUNING] table under %v", roots)
	}
	t.Logf("captures: %d, table %d/%d cells agree, per-op %d/%d agree", n, total.tableAgree, total.tableLines, total.opAgree, total.opLines)
}

func FuzzTuningGraphDump(f *testing.F) {
	f.Add([]byte(`<graphs version="1"><graph id="0" pattern="4" crossnic="0" nchannels="12" speedintra="30" speedinter="30" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="1"/></graphs>`))
	f.Add([]byte(`<graphs><graph id="9"/></graphs>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := parseTuningGraphDump("fuzz.xml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.xml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for id, x := range g {
			if id < 0 || id > 4 || x.NChannels < 0 {
				t.Fatalf("graph %d: %+v", id, x)
			}
		}
	})
}

// TestTuningReplayPlumbing checks the replay's reading of a capture
// directory (graph dump, topology dump, environment, enable matrix, WARN)
// on a directory written from the model's own output — the model against
// itself, so this tests the harness, not the model — and that a wrong fact
// makes it report differences.
func TestTuningReplayPlumbing(t *testing.T) {
	// 2 × H200 on NVSwitch with NCCL_ALGO=Tree, as the gate engine reads it.
	ring := &topo.Graph{ID: 0, Pattern: topo.PatternRing, NChannels: 12, BwIntra: 30, BwInter: 30,
		TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX, SameChannels: true}
	tree := &topo.Graph{ID: 1, Pattern: topo.PatternBalancedTree, NChannels: 12, BwIntra: 60, BwInter: 60,
		TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	in := tuning.Input{NRanks: 2, NNodes: 1, MaxLocalRanks: 2, LocalRanks: 2, MinCompCap: 90, MaxCompCap: 90, NChannels: 24,
		CPUArch: tuning.ArchX86, CPUVendor: tuning.VendorIntel, Graphs: tuning.Graphs(ring, tree, nil, nil, nil),
		MaxTreePattern: topo.PatternBalancedTree, NVSwitch: true, Enable: tuning.DefaultEnable(), CUDARuntime: 13000}
	algo := "Tree"
	in.Algo = &algo
	for f := range spec.NumFuncs {
		in.Enable.Algo[f] = [spec.NumAlgos]int8{}
		in.Enable.Algo[f][spec.Tree] = 1
	}
	m, err := tuning.BuildModel(in, spec.MustLoad(spec.V2_28_9).Tuning)
	if err != nil {
		t.Fatal(err)
	}
	choose := func(f spec.Func, bytes int64) *tuning.OpChoice {
		op, err := spec.OpFromBytes(f, bytes, spec.Float32, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tuning.ChooseOp(m, tuning.Call{Op: op})
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	p := "host:1:2 [0] NCCL INFO "
	var log strings.Builder
	log.WriteString(p + "NCCL version 2.28.9+cuda13.0\n")
	log.WriteString(p + "comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n")
	for _, l := range m.Log {
		log.WriteString(p + l.Text + "\n")
	}
	log.WriteString(p + "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n")
	for _, sz := range []int64{4096, 1 << 20, 64 << 20} {
		c := choose(spec.AllReduce, sz)
		log.WriteString(p + c.Line + "\n")
	}
	c := choose(spec.AllGather, 4096)
	log.WriteString("\nhost:1:2 [0] enqueue.cc:1 NCCL WARN " + c.Warn + "\n")
	graphs := `<graphs version="1">
  <graph id="0" pattern="4" crossnic="0" nchannels="12" speedintra="30" speedinter="30" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="1"/>
  <graph id="1" pattern="1" crossnic="0" nchannels="12" speedintra="60" speedinter="60" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="0"/>
  <graph id="2" pattern="3" crossnic="0" nchannels="0" speedintra="0" speedinter="0" latencyinter="0" typeintra="LOC" typeinter="LOC" samechannels="0"/>
  <graph id="3" pattern="6" crossnic="0" nchannels="0" speedintra="0" speedinter="0" latencyinter="0" typeintra="LOC" typeinter="LOC" samechannels="0"/>
  <graph id="4" pattern="5" crossnic="0" nchannels="0" speedintra="0" speedinter="0" latencyinter="0" typeintra="LOC" typeinter="LOC" samechannels="0"/>
</graphs>
`
	topoXML := `<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel"><pci busid="0000:05:00.0"><gpu dev="0" sm="90" rank="0"><nvlink target="0000:00:00.0" count="18" tclass="0x068000"/></gpu></pci></cpu></system>`
	write := func(sm string) string {
		dir := t.TempDir()
		for name, data := range map[string]string{"nccl.log": log.String(), "graph.xml": graphs,
			"topo.xml": strings.ReplaceAll(topoXML, `sm="90"`, `sm="`+sm+`"`)} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	res, err := replayTuningCapture(write("90"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.mismatches) != 0 || res.tableLines == 0 || res.tableAgree != res.tableLines || res.opAgree != 4 || res.opLines != 4 {
		t.Fatalf("plumbing: %d/%d table, %d/%d ops, %q", res.tableAgree, res.tableLines, res.opAgree, res.opLines, res.mismatches)
	}
	res, err = replayTuningCapture(write("80"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.mismatches) == 0 {
		t.Fatal("a wrong compute capability went unnoticed")
	}
}
