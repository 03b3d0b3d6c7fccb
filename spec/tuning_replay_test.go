package spec

// Replay of real NCCL runs against the tuning model: a capture directory
// holds NCCL's debug log (NCCL_DEBUG=INFO with at least TUNING; INIT, ENV
// and GRAPH help), optionally NCCL's graph dump (NCCL_GRAPH_DUMP_FILE) and
// topology dump (NCCL_TOPO_DUMP_FILE), and optionally tuning-capture.json for
// facts the log does not print. The replay rebuilds the communicator's
// TuningInput from them, runs the model and compares the printed table, the
// threadThresholds line and every per-operation line.
//
// Point it at captures with GATESIM_TUNING_CAPTURES=dir1:dir2 (each a
// capture or a tree of captures); by default it looks in
// ../golden/testdata/captured. The public captures under
// testdata/tuning/public always run.
//
// The log and XML readers here are test helpers (hw/ncclog and spec/topo
// own the product parsers); they are fuzzed like any parser.

import (
	"bufio"
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

	"github.com/gatesim/gatesim/spec/topo"
)

// tuningLogFacts is what the replay reads from an NCCL log.
type tuningLogFacts struct {
	version      string // "2.28.9"
	cudaRuntime  int    // 13000 for +cuda13.0
	nRanks       int
	nNodes       int
	localRanks   int
	nChannels    int
	nvlsChannels int
	env          map[string]string // "NCCL_ALGO" → value, from "... set by environment to ..."
	matrix       *EnableMatrix     // the printed "Enabled NCCL Func/Proto/Algo Matrix"
	matrixAlgos  int
	graphs       []*topo.Graph // [GRAPH] "Pattern ..." lines in order
	table        []string      // the first [TUNING] table, message part
	thresholds   string        // "threadThresholds ..."
	opLines      []string      // per-op lines with a function name (2.23.4+)
	noAlgoWarns  []string      // "Error : no algorithm/protocol available for function ..." WARNs
	r22Lines     int           // 2.22.3 per-op lines (no function name: not replayed)
}

var (
	reTuningPrefix   = regexp.MustCompile(`NCCL (INFO|WARN) (.*)$`) // WARN lines may carry "file.cc:line (func) " before "NCCL WARN"
	reTuningVersion  = regexp.MustCompile(`^NCCL version (\d+\.\d+\.\d+)\+cuda(\d+)\.(\d+)`)
	reTuningComm     = regexp.MustCompile(`^comm 0x[0-9a-f]+ rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+) localRank \d+`)
	reTuningChannels = regexp.MustCompile(`^(\d+) coll channels, (?:(\d+) collnet channels, )?(?:(\d+) nvls channels, )?\d+ p2p channels`)
	reTuningEnv      = regexp.MustCompile(`^(NCCL_[A-Z0-9_]+) set by environment to (.*?)\.?$`)
	reTuningGraph    = regexp.MustCompile(`^Pattern (\d+), crossNic (\d+), nChannels (\d+), (?:bw|speed) ([\d.]+)/([\d.]+), type (\w+)/(\w+), sameChannels (\d)`)
	reTuningOp       = regexp.MustCompile(`^(\w+): (\d+) Bytes -> Algo (\w+) proto (\w+) (?:channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}|time [\d.]+)$`)
	reTuningOpR22    = regexp.MustCompile(`^\d+ Bytes -> Algo \d+ proto \d+ time [\d.]+$`)
	reTuningNoAlgo   = regexp.MustCompile(`^(?:Error : no|No) algorithm/protocol available for function (\w+) with datatype (\w+)\.`)
	reTuningRow      = regexp.MustCompile(`^(  Algorithm   \||  Protocol    \|| Max NThreads \||\s*(Broadcast|Reduce|AllGather|ReduceScatter|AllReduce) \|)`)
)

// parseTuningLog reads an NCCL debug log; name is for error messages.
func parseTuningLog(name string, data []byte) (*tuningLogFacts, error) {
	f := &tuningLogFacts{env: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	// no initial buffer: the scanner grows its own from 4 KiB, so a short
	// log (every fuzz execution) does not allocate 64 KiB
	sc.Buffer(nil, 1<<22)
	tableDone := false
	inMatrix := 0
	var matrix EnableMatrix
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if inMatrix > 0 {
			// Continuation lines of the matrix message: a header, then one row per function.
			inMatrix--
			fields := strings.Fields(strings.ReplaceAll(line, "|", " "))
			if len(fields) < 1 || fields[0] == "Function" {
				if len(fields) > 0 {
					f.matrixAlgos = len(fields) - 4
				}
				continue
			}
			fn, err := ParseFunc(fields[0])
			if err != nil || int(fn) >= NumFuncs || len(fields) != 1+NumProtos+f.matrixAlgos {
				return nil, fmt.Errorf("%s:%d: enable matrix row %q: expected a function and %d flags", name, n, line, NumProtos+f.matrixAlgos)
			}
			for i, s := range fields[1:] {
				v, err := strconv.Atoi(s)
				if err != nil || v < 0 || v > 2 {
					return nil, fmt.Errorf("%s:%d: enable matrix flag %q: expected 0, 1 or 2", name, n, s)
				}
				if i < NumProtos {
					matrix.Proto[fn][i] = int8(v)
				} else {
					matrix.Algo[fn][i-NumProtos] = int8(v)
				}
			}
			if inMatrix == 0 {
				m := matrix
				f.matrix = &m
			}
			continue
		}
		mm := reTuningPrefix.FindStringSubmatch(line)
		if mm == nil {
			continue
		}
		msg := mm[2]
		if mm[1] == "WARN" {
			if reTuningNoAlgo.MatchString(msg) {
				f.noAlgoWarns = append(f.noAlgoWarns, msg)
			}
			continue
		}
		switch {
		case reTuningVersion.MatchString(msg):
			v := reTuningVersion.FindStringSubmatch(msg)
			f.version = v[1]
			maj, _ := strconv.Atoi(v[2])
			mnr, _ := strconv.Atoi(v[3])
			f.cudaRuntime = maj*1000 + mnr*10
		case reTuningComm.MatchString(msg):
			v := reTuningComm.FindStringSubmatch(msg)
			if v[1] == "0" {
				f.nRanks, _ = strconv.Atoi(v[2])
				f.nNodes, _ = strconv.Atoi(v[3])
				f.localRanks, _ = strconv.Atoi(v[4])
			}
		case reTuningChannels.MatchString(msg):
			v := reTuningChannels.FindStringSubmatch(msg)
			f.nChannels, _ = strconv.Atoi(v[1])
			if v[3] != "" {
				f.nvlsChannels, _ = strconv.Atoi(v[3])
			}
		case strings.HasPrefix(msg, "Enabled NCCL Func/Proto/Algo Matrix:"):
			inMatrix = 1 + NumFuncs
		case reTuningEnv.MatchString(msg):
			v := reTuningEnv.FindStringSubmatch(msg)
			f.env[v[1]] = v[2]
		case reTuningGraph.MatchString(msg):
			v := reTuningGraph.FindStringSubmatch(msg)
			g := &topo.Graph{}
			pat, _ := strconv.Atoi(v[1])
			g.Pattern = topo.Pattern(pat)
			g.CrossNic, _ = strconv.Atoi(v[2])
			g.NChannels, _ = strconv.Atoi(v[3])
			bi, err1 := strconv.ParseFloat(v[4], 32)
			be, err2 := strconv.ParseFloat(v[5], 32)
			ti, err3 := topo.ParsePathType(v[6])
			te, err4 := topo.ParsePathType(v[7])
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
				return nil, fmt.Errorf("%s:%d: graph line %q: expected numbers and path types", name, n, msg)
			}
			g.BwIntra, g.BwInter, g.TypeIntra, g.TypeInter = float32(bi), float32(be), ti, te
			g.SameChannels = v[8] == "1"
			f.graphs = append(f.graphs, g)
		case strings.HasPrefix(msg, "threadThresholds "):
			if f.thresholds == "" {
				f.thresholds = msg
			}
		case reTuningRow.MatchString(msg):
			if !tableDone {
				if strings.HasPrefix(msg, "  Algorithm   |") && len(f.table) > 0 && len(f.table)%8 != 0 {
					return nil, fmt.Errorf("%s:%d: a table block with %d lines: expected 8", name, n, len(f.table)%8)
				}
				f.table = append(f.table, msg)
			}
		case reTuningOp.MatchString(msg):
			if len(f.table) > 0 {
				tableDone = true
			}
			f.opLines = append(f.opLines, msg)
		case reTuningOpR22.MatchString(msg):
			f.r22Lines++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return f, nil
}

// tuningGraphXML is NCCL_GRAPH_DUMP_FILE's <graphs><graph .../></graphs>.
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
	dir                    string
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
			f, err := parseTuningLog(p, data)
			if err != nil {
				return nil, err
			}
			if len(f.table) > 0 && (facts == nil || len(facts.table) == 0) {
				facts = f
			}
		}
	}
	if facts == nil || len(facts.table) == 0 {
		return nil, nil // not a capture with a tuning table
	}

	// The release and its Tuning, with any documented edits.
	rel := facts.version
	if cj.Release != "" {
		rel = cj.Release
	}
	v, err := ParseVersion(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	tu, _, err := TuningForRelease(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v (set \"release\" and \"edits\" in tuning-capture.json for an unmodelled release)", dir, err)
	}
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
	in := TuningInput{
		NRanks: pick(facts.nRanks, cj.NRanks), NNodes: pick(facts.nNodes, cj.NNodes),
		LocalRanks: pick(facts.localRanks, cj.LocalRanks), MinCompCap: cj.MinCompCap, MaxCompCap: cj.MaxCompCap,
		CUDARuntime: facts.cudaRuntime, NChannels: pick(facts.nChannels, cj.NChannels),
		NVLSChannels: pick(facts.nvlsChannels, cj.NVLSChannels), NVSwitch: cj.NVSwitch, CollNetEnable: cj.CollNetEnable,
		Enable: DefaultEnable(),
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
	in.CPUArch, in.CPUVendor = TuningCPUOf(CPU{Arch: arch, Vendor: vendor})

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
	in.Graphs = TuningGraphs(ring, tree, chain, direct, nvls)
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

	m, err := BuildTuningModel(in, tu)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	got := m.TableLines()
	res.tableLines = len(facts.table)
	for i, want := range facts.table {
		if i < len(got) && got[i] == want {
			res.tableAgree++
		} else {
			g := ""
			if i < len(got) {
				g = got[i]
			}
			res.mismatches = append(res.mismatches, fmt.Sprintf("table line %d:\n   got  %q\n   want %q", i+1, g, want))
		}
	}
	if len(got) != len(facts.table) {
		res.mismatches = append(res.mismatches, fmt.Sprintf("table has %d lines, logged %d", len(got), len(facts.table)))
	}
	if facts.thresholds != "" && facts.thresholds != m.ThreadThresholdsLine() {
		res.mismatches = append(res.mismatches, fmt.Sprintf("got %q, logged %q", m.ThreadThresholdsLine(), facts.thresholds))
	}
	dt := Float32
	if cj.DataType != "" {
		if dt, err = ParseDataType(cj.DataType); err != nil {
			return nil, fmt.Errorf("%s/tuning-capture.json: %v", dir, err)
		}
	}
	for _, l := range facts.opLines {
		v := reTuningOp.FindStringSubmatch(l)
		fn, err := ParseFunc(v[1])
		if err != nil || int(fn) >= NumFuncs {
			continue
		}
		bytes, _ := strconv.ParseInt(v[2], 10, 64)
		t := dt
		if bytes%int64(t.Size()) != 0 {
			t = Int8
		}
		res.opLines++
		op, err := OpFromBytes(fn, bytes, t, Sum, 0)
		if err != nil {
			return nil, err
		}
		c, err := ChooseOp(m, TuningOp{Op: op, NVLSOK: in.NVLSSupport, CollNetOK: in.CollNetEnable})
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", dir, l, err)
		}
		if c.Line == l {
			res.opAgree++
		} else {
			res.mismatches = append(res.mismatches, fmt.Sprintf("per-op:\n   got  %q\n   want %q", c.Line, l))
		}
	}
	for _, w := range facts.noAlgoWarns {
		v := reTuningNoAlgo.FindStringSubmatch(w)
		fn, err := ParseFunc(v[1])
		if err != nil || int(fn) >= NumFuncs {
			continue
		}
		t := Float32
		if d, err := ParseDataType(v[2]); err == nil {
			t = d
		} else if v[2] == "Unknown" {
			t = Uint8
		}
		if fn == AllGather || fn == Broadcast {
			t = Int8 // NCCL converts them to bytes before deciding
		}
		res.opLines++
		c, err := ChooseOp(m, TuningOp{Op: Op{Func: fn, Count: 1 << 18, DataType: t}, NVLSOK: in.NVLSSupport, CollNetOK: in.CollNetEnable})
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", dir, w, err)
		}
		if c.Warn == w {
			res.opAgree++
		} else {
			res.mismatches = append(res.mismatches, fmt.Sprintf("no-algorithm WARN:\n   got  %q\n   want %q", c.Warn, w))
		}
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
		t.Logf("%s: table %d/%d lines agree, per-op %d/%d agree%s", dir, res.tableAgree, res.tableLines, res.opAgree, res.opLines,
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
	total, n := runTuningReplay(t, []string{filepath.Join("testdata", "tuning", "public")})
	if n == 0 || total.tableLines == 0 || total.opLines == 0 {
		t.Fatalf("no public capture replayed (%d captures, %d table lines, %d per-op lines)", n, total.tableLines, total.opLines)
	}
	t.Logf("public: %d captures, table %d/%d, per-op %d/%d", n, total.tableAgree, total.tableLines, total.opAgree, total.opLines)
}

// TestTuningReplayCaptures replays real captures (GATESIM_TUNING_CAPTURES, or
// ../golden/testdata/captured when it exists).
func TestTuningReplayCaptures(t *testing.T) {
	roots := filepath.SplitList(os.Getenv("GATESIM_TUNING_CAPTURES"))
	if len(roots) == 0 {
		def := filepath.Join("..", "golden", "testdata", "captured")
		if _, err := os.Stat(def); err != nil {
			t.Fatalf("no captures at %s: the committed captures are missing (or set GATESIM_TUNING_CAPTURES)", def)
		}
		roots = []string{def}
	}
	total, n := runTuningReplay(t, roots)
	if n == 0 {
		t.Fatalf("no capture with a [TUNING] table under %v", roots)
	}
	t.Logf("captures: %d, table %d/%d lines agree, per-op %d/%d agree", n, total.tableAgree, total.tableLines, total.opAgree, total.opLines)
}

func FuzzTuningLog(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "tuning", "public", "nccl-ebpf-rtx5090-2.29.7", "rank0.log"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("h:1:1 [0] NCCL INFO Enabled NCCL Func/Proto/Algo Matrix:\n     Function | LL\nBroadcast | 1 2\n"))
	f.Add([]byte("x NCCL INFO Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		facts, err := parseTuningLog("fuzz.log", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.log") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if len(facts.table) > 0 && !reTuningRow.MatchString(facts.table[0]) {
			t.Fatalf("table line %q", facts.table[0])
		}
	})
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

// TestTuningParseLog checks the log reader on lines built from NCCL's
// format strings (src/init.cc, src/graph/search.cc, src/graph/tuning.cc,
// src/misc/param.cc), not on a real log.
func TestTuningParseLog(t *testing.T) {
	in := tuningH200x2Input()
	s := "^LL128"
	in.Proto = &s
	for f := range NumFuncs {
		in.Enable.Proto[f][LL128] = 0
	}
	m := tuningModel(t, in, V2_28_9)
	var b strings.Builder
	p := "host:1:2 [0] NCCL INFO "
	b.WriteString(p + "NCCL version 2.28.9+cuda13.0\n")
	b.WriteString(p + "NCCL_NTHREADS set by environment to 256.\n")
	b.WriteString(p + "Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1\n")
	b.WriteString(p + "Pattern 1, crossNic 0, nChannels 12, bw 60.000000/60.000000, type NVL/PIX, sameChannels 0\n")
	b.WriteString(p + "comm 0x5555 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n")
	for _, l := range m.Log {
		b.WriteString(p + l.Text + "\n")
	}
	b.WriteString(p + "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n")
	b.WriteString(p + "AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n")
	b.WriteString(p + "8192 Bytes -> Algo 1 proto 0 time 7.2\n")
	b.WriteString("\n[2026-01-01 10:00:00] host:1:2 [0] enqueue.cc:1900 NCCL WARN Error : no algorithm/protocol available for function AllGather with datatype ncclInt8. NCCL_ALGO was set to Tree.\n")
	f, err := parseTuningLog("t.log", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if f.version != "2.28.9" || f.cudaRuntime != 13000 || f.nRanks != 2 || f.nNodes != 1 || f.localRanks != 2 || f.nChannels != 24 {
		t.Errorf("facts %+v", f)
	}
	if f.env["NCCL_NTHREADS"] != "256" || f.env["NCCL_PROTO"] != "^LL128" {
		t.Errorf("env %v", f.env)
	}
	if len(f.graphs) != 2 || f.graphs[0].NChannels != 12 || f.graphs[1].BwIntra != 60 || !f.graphs[0].SameChannels || f.graphs[1].Pattern != topo.PatternBalancedTree {
		t.Errorf("graphs %+v %+v", f.graphs[0], f.graphs[1])
	}
	if f.matrix == nil || *f.matrix != in.Enable || f.matrixAlgos != NumAlgos {
		t.Errorf("matrix %v", f.matrix)
	}
	if strings.Join(f.table, "\n") != strings.Join(m.TableLines(), "\n") || f.thresholds != m.ThreadThresholdsLine() {
		t.Error("table or thresholds not read back")
	}
	if len(f.noAlgoWarns) != 1 || !strings.HasSuffix(f.noAlgoWarns[0], "NCCL_ALGO was set to Tree.") {
		t.Errorf("warns %q", f.noAlgoWarns)
	}
	if len(f.opLines) != 1 || f.r22Lines != 1 {
		t.Errorf("op lines %q, r22 %d", f.opLines, f.r22Lines)
	}
	if _, err := parseTuningLog("bad.log", []byte(p+"Enabled NCCL Func/Proto/Algo Matrix:\n     Function | LL\nBroadcast | 7\n")); err == nil || !strings.Contains(err.Error(), "bad.log:3") {
		t.Errorf("a bad matrix row: %v", err)
	}
}

// TestTuningReplayPlumbing checks the replay's reading of a capture
// directory (graph dump, topology dump, environment, enable matrix, WARN)
// on a directory written from the model's own output — the model against
// itself, so this tests the harness, not the model — and that a wrong fact
// makes it report differences.
func TestTuningReplayPlumbing(t *testing.T) {
	in := tuningH200x2Input()
	tuningForceAlgo(&in, Tree)
	m := tuningModel(t, in, V2_28_9)
	p := "host:1:2 [0] NCCL INFO "
	var log strings.Builder
	log.WriteString(p + "NCCL version 2.28.9+cuda13.0\n")
	log.WriteString(p + "comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n")
	for _, l := range m.Log {
		log.WriteString(p + l.Text + "\n")
	}
	log.WriteString(p + "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n")
	for _, sz := range []int64{4096, 1 << 20, 64 << 20} {
		c := tuningChoose(t, m, AllReduce, sz, Float32)
		log.WriteString(p + c.Line + "\n")
	}
	c := tuningChoose(t, m, AllGather, 4096, Float32)
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
	if len(res.mismatches) != 0 || res.tableAgree != 24 || res.opAgree != 4 || res.opLines != 4 {
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
