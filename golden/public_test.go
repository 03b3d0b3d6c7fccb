package golden

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/diagnose"
	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// Public ground truth: NCCL logs posted in public material, from machines
// the project cannot run on, each with its provenance
// (testdata/public/<case>/README.md), a short excerpt of the posted log
// (log.txt) and a "case" file saying how the machine is built, which
// environment the run had, which modelled release stands for the release
// that printed the log, and what is expected of every line the model can be
// held against. TestPublicTruth rebuilds each machine, runs spec.Init and
// compares; the outcome of every compared item (agree, or a listed
// disagreement with its reason) is asserted, so a change either way fails.
// check.golden records the comparison (-update rewrites it).

var publicTruthRoot = filepath.Join("testdata", "public")

// minPublicTruthCases is the least number of public cases: the ones
// committed (8-GPU NVSwitch nodes, multi-node, NVLS-capable, PCIe-only,
// one-GPU EFA nodes, a CUDA-graph capture, releases 2.18.1 to 2.30.4,
// 2.20.x argued), so a lost case fails the test.
const minPublicTruthCases = 22

// publicCase is one parsed "case" file.
type publicCase struct {
	dir      string
	source   string
	logged   spec.Version   // the release the log's "NCCL version" line names
	pin      string         // unlogged: the FILE:LINE of a WARN or TRACE the log printed, which pins the release, or "forms"
	stated   spec.Version   // the release the post states in its text (the excerpt prints no version line)
	argued   []spec.Version // the releases the README argues from what the lines print (no version line, none stated)
	opFunc   spec.Func      // the collective of operation lines that do not name it (-1: none given)
	releases []spec.Version // modelled releases the check runs at
	topo     string         // topology XML, relative to the case directory
	preset   string
	nodes    int
	sharp    bool            // the HPC-X SHARP plugin, net and CollNet v5-v8
	plugin   string          // another build of that plugin: "sharp-v6" or "rdma-v6" (see v6Plugin)
	ofi      string          // aws-ofi-nccl as spec.NamedPlugin reads it: "aws-ofi-nccl@VERSION:PLATFORM"
	libs     []spec.Library  // libraries added to every node instead (a test's)
	noP2P    bool            // NVML reports no P2P between the GPUs (GeForce boards)
	launch   spec.LaunchMode // how the run launched its operations (CUDA graph capture or the stream)
	alloc    spec.Alloc      // how the application allocated its buffers (what NCCL can register)
	env      spec.Env
	expect   map[string]string // item -> "" (agree) or the reason of a known disagreement
	order    []string          // items in file order, for messages
}

// Case file directives, one per line (a line starting with '#' is a comment):
//
//	source URL                   where the log was posted
//	logged X.Y.Z                 the release the log prints (checked against its NCCL version line)
//	unlogged FILE:LINE           the log prints no NCCL version line; a WARN or TRACE it printed at
//	                             FILE:LINE pins the release (README: the tags with that line)
//	unlogged forms               the log prints no NCCL version line; the wording of its lines pins
//	                             the release (diagnose's inference must give exactly the releases)
//	stated X.Y.Z                 the log prints no NCCL version line; the post states the release in
//	                             its text (diagnose's inference from the lines must allow it)
//	argued X.Y.Z [X.Y.Z...]     the log prints no NCCL version line and the post states none; the
//	                             README argues the release from values only these releases print
//	                             (diagnose's inference from the lines must allow each)
//	func NAME                    the collective of operation lines that do not name it (2.20-2.22
//	                             print only the bytes): the one collective the run called
//	release X.Y.Z [X.Y.Z...]     the modelled release(s) every expectation must hold at
//	topo PATH | preset NAME      the machine: NCCL's topology XML (relative path) or a preset
//	nodes N                      copies of the node (default 1)
//	plugin sharp                 the HPC-X SHARP plugin (Net and CollNet v5-v8) on every node
//	plugin sharp-v6              an older build of the same plugin: net and CollNet v6 only
//	                             (nccl-tests#329), on every node (topo only)
//	plugin rdma-v6               a build of the same plugin with only ncclNetPlugin_v6 and no
//	                             CollNet (a cloud vendor's, nccl-tests#321), on every node (topo only)
//	plugin aws-ofi-nccl V P      aws-ofi-nccl release V on EC2 instance type P (spec.OFIPlugin) on
//	                             every node (topo only)
//	driver p2p-not-supported     NVML reports P2P between the GPUs as not supported (GeForce boards)
//	launch stream|graph          how the run launched its operations: on the stream (default) or
//	                             captured into a CUDA graph (NCCL_GRAPH_REGISTER registers at capture)
//	alloc cumem|cudamalloc       how the application allocated its buffers (default cumem;
//	                             PyTorch's caching allocator is cudamalloc)
//	env NAME=VALUE               one NCCL_* variable of the run
//	agree ITEM                   the item must agree
//	differ ITEM: REASON          a known disagreement, with its reason
//
// "ITEM @X.Y.Z" (agree network @2.28.3) scopes an expectation to one of
// the releases; it takes precedence over the unscoped one.
//
// Items: network, system, fallback (the search's simple-order WARNs), graph
// ring|tree|nvls|collnet, channels, threadThresholds, matrix, table, op FUNC BYTES,
// register (NVLS registrations that failed, with their operation).
func readPublicCase(dir string) (*publicCase, error) {
	path := filepath.Join(dir, "case")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parsePublicCase(dir, path, data)
}

// parsePublicCase reads a case file's text; path names it in errors.
func parsePublicCase(dir, path string, data []byte) (*publicCase, error) {
	var err error
	c := &publicCase{dir: dir, nodes: 1, env: spec.Env{}, expect: map[string]string{}, opFunc: -1}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		bad := func(want string) error { return fmt.Errorf("%s:%d: %q: expected %s", path, n, line, want) }
		switch key {
		case "source":
			c.source = rest
		case "logged":
			if c.logged, err = spec.ParseVersion(rest); err != nil {
				return nil, bad("logged X.Y.Z")
			}
		case "unlogged":
			file, line, ok := strings.Cut(rest, ":")
			if n, err := strconv.Atoi(line); rest != "forms" && (!ok || file == "" || strings.ContainsAny(file, " \t") || err != nil || n < 1) {
				return nil, bad("unlogged FILE:LINE or unlogged forms")
			}
			c.pin = rest
		case "stated":
			if c.stated, err = spec.ParseVersion(rest); err != nil {
				return nil, bad("stated X.Y.Z")
			}
		case "argued":
			for _, f := range strings.Fields(rest) {
				v, err := spec.ParseVersion(f)
				if err != nil {
					return nil, bad("argued X.Y.Z [X.Y.Z...]")
				}
				c.argued = append(c.argued, v)
			}
			if len(c.argued) == 0 {
				return nil, bad("argued X.Y.Z [X.Y.Z...]")
			}
		case "func":
			f, err := spec.ParseFunc(rest)
			if err != nil {
				return nil, bad("func NAME (a collective)")
			}
			c.opFunc = f
		case "release":
			for _, f := range strings.Fields(rest) {
				v, err := spec.ParseVersion(f)
				if err != nil {
					return nil, bad("release X.Y.Z [X.Y.Z...]")
				}
				c.releases = append(c.releases, v)
			}
		case "topo":
			c.topo = rest
		case "preset":
			c.preset = rest
		case "nodes":
			if c.nodes, err = strconv.Atoi(rest); err != nil || c.nodes < 1 {
				return nil, bad("nodes N (N >= 1)")
			}
		case "plugin":
			f := strings.Fields(rest)
			switch {
			case rest == "sharp":
				c.sharp = true
			case rest == "sharp-v6", rest == "rdma-v6":
				c.plugin = rest
			case len(f) == 3 && f[0] == spec.OFIPluginName:
				c.ofi = f[0] + "@" + f[1] + ":" + f[2]
				if _, _, err := spec.NamedPlugin(c.ofi); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, n, err)
				}
			default:
				return nil, bad("plugin sharp, plugin sharp-v6, plugin rdma-v6 or plugin aws-ofi-nccl VERSION PLATFORM")
			}
		case "driver":
			if rest != "p2p-not-supported" {
				return nil, bad("driver p2p-not-supported")
			}
			c.noP2P = true
		case "launch":
			if c.launch, err = spec.ParseLaunchMode(rest); err != nil {
				return nil, bad("launch stream or launch graph")
			}
		case "alloc":
			if c.alloc, err = spec.ParseAlloc(rest); err != nil || (c.alloc != spec.AllocCuMem && c.alloc != spec.AllocCudaMalloc) {
				return nil, bad("alloc cumem or alloc cudamalloc")
			}
		case "env":
			k, v, ok := strings.Cut(rest, "=")
			if !ok || !strings.HasPrefix(k, "NCCL_") {
				return nil, bad("env NCCL_NAME=VALUE")
			}
			c.env[k] = v
		case "agree", "differ":
			item, reason := rest, ""
			if key == "differ" {
				var ok bool
				item, reason, ok = strings.Cut(rest, ":")
				item, reason = strings.TrimSpace(item), strings.TrimSpace(reason)
				if !ok || reason == "" {
					return nil, bad("differ ITEM: REASON")
				}
			}
			if item == "" {
				return nil, bad(key + " ITEM")
			}
			// "ITEM @X.Y.Z" scopes the expectation to one of the releases.
			if name, at, ok := strings.Cut(item, " @"); ok {
				v, err := spec.ParseVersion(at)
				if err != nil || strings.TrimSpace(name) == "" {
					return nil, bad(key + " ITEM @X.Y.Z")
				}
				item = strings.TrimSpace(name) + "@" + v.String()
			}
			if _, dup := c.expect[item]; dup {
				return nil, fmt.Errorf("%s:%d: item %q listed twice", path, n, item)
			}
			c.expect[item] = reason
			c.order = append(c.order, item)
		default:
			return nil, bad("source, logged, unlogged, stated, argued, release, topo, preset, nodes, plugin, driver, launch, alloc, env, func, agree or differ")
		}
	}
	switch {
	case c.source == "":
		return nil, fmt.Errorf("%s: no source line", path)
	case btoi(c.logged != 0)+btoi(c.pin != "")+btoi(c.stated != 0)+btoi(len(c.argued) > 0) != 1:
		return nil, fmt.Errorf("%s: expected exactly one of logged, unlogged, stated and argued", path)
	case c.stated != 0 && !slices.Contains(c.releases, c.stated):
		return nil, fmt.Errorf("%s: stated %s must be one of the releases", path, c.stated)
	case len(c.argued) > 0 && slices.ContainsFunc(c.argued, func(v spec.Version) bool { return !slices.Contains(c.releases, v) }):
		return nil, fmt.Errorf("%s: every argued release must be one of the releases", path)
	case len(c.releases) == 0:
		return nil, fmt.Errorf("%s: no release line", path)
	case (c.topo == "") == (c.preset == ""):
		return nil, fmt.Errorf("%s: expected exactly one of topo and preset", path)
	case c.plugin != "" && (c.sharp || c.preset != ""):
		return nil, fmt.Errorf("%s: plugin %s goes with a topo and without plugin sharp", path, c.plugin)
	case c.ofi != "" && (c.sharp || c.plugin != "" || c.preset != ""):
		return nil, fmt.Errorf("%s: plugin %s goes with a topo and no other plugin", path, spec.OFIPluginName)
	}
	return c, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expectation is the expected outcome of an item at a release: the reason
// of a known disagreement ("" to agree) and whether the case lists it.
func (c *publicCase) expectation(key string, rel spec.Version) (string, bool) {
	if r, ok := c.expect[key+"@"+rel.String()]; ok {
		return r, true
	}
	r, ok := c.expect[key]
	return r, ok
}

// system builds the case's machine: NCCL's topology XML copied onto every
// node, or a preset.
func (c *publicCase) system(nodes int) (*spec.System, error) {
	sys, err := c.machine(nodes)
	if err != nil {
		return nil, err
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Driver.P2PNotSupported = c.noP2P
	}
	return sys, nil
}

func (c *publicCase) machine(nodes int) (*spec.System, error) {
	if c.preset != "" {
		return spec.Preset(c.preset, spec.PresetOptions{Nodes: nodes, SHARP: c.sharp})
	}
	file := filepath.Join(c.dir, c.topo)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	sys, err := spec.SystemFromTopology(file, data, nodes)
	if err != nil {
		return nil, err
	}
	for i := range sys.Nodes {
		switch {
		case c.sharp:
			sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, spec.SHARPPlugin())
		case c.plugin != "":
			sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, v6Plugin(c.plugin == "sharp-v6"))
		case c.ofi != "":
			libs, _, err := spec.NamedPlugin(c.ofi)
			if err != nil {
				return nil, err
			}
			sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, libs...)
		case len(c.libs) > 0:
			sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, c.libs...)
		}
	}
	return sys, nil
}

// ofiPluginLines describe an aws-ofi-nccl plugin ("aws-ofi-nccl@V[:P]",
// libs its libraries, read from the name when nil) for the plugin item:
// its version, whether its network has GDR, and its instance type when
// withPlatform.
func ofiPluginLines(name string, libs []spec.Library, withPlatform bool) []string {
	if name == "" {
		return []string{"no aws-ofi-nccl plugin"}
	}
	rest, _ := strings.CutPrefix(name, spec.OFIPluginName+"@")
	version, platform, _ := strings.Cut(rest, ":")
	if libs == nil {
		libs, _, _ = spec.NamedPlugin(name)
	}
	gdr := "GDR unknown"
	if len(libs) > 0 && libs[0].Net != nil {
		gdr = map[bool]string{false: "GDR on", true: "GDR off"}[libs[0].Net.NoGDR]
	}
	out := []string{spec.OFIPluginName + " " + version, gdr}
	if withPlatform {
		out = append(out, "platform "+platform)
	}
	return out
}

// v6Plugin is nccl-rdma-sharp-plugins built with the v6 net ABI at most:
// NCCL finds ncclNetPlugin_v6 and no newer, the plugin's v6 init installs
// the IB struct it names "IBext" ("P2P plugin IBext"), and the exported
// struct's name, "NCCL RDMA Plugin v6", is what NCCL prints at load. With
// collNet (an older HPC-X, nccl-tests#329: "Loaded coll plugin SHARP
// (v6)") it has ncclCollNetPlugin_v6 too; without (a cloud vendor's build,
// nccl-tests#321: "Plugin version : 1.2@Tencent Cloud") no CollNet symbol.
func v6Plugin(collNet bool) spec.Library {
	lib := spec.SHARPPlugin()
	lib.NetSymbols = []int{6}
	lib.CollNetSymbols = []int{6}
	if !collNet {
		lib.Path = "/usr/local/lib/libnccl-net.so"
		lib.CollNetSymbols, lib.CollNet = nil, nil
	}
	net := *lib.Net
	net.Name = "IBext"
	lib.Net = &net
	return lib
}

// publicItem is one compared item.
type publicItem struct {
	key        string
	pred, obs  []string
	agree      bool
	agreeCount string // for counted items (table cells): "n of m"
}

// observedLog is what the excerpt printed, read with ncclog plus the
// raw message lines for the blocks ncclog aggregates away (the [GRAPH]
// system print and the channel rows of each graph).
type observedLog struct {
	log       *ncclog.Log
	msgs      []string
	srcs      map[string]bool // FILE:LINE of every WARN and TRACE line
	fallbacks []string        // the search's "Could not find a path for pattern N" WARNs, in order
}

func readObserved(file string) (*observedLog, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	l, err := ncclog.Parse(bytes.NewReader(data), file)
	if err != nil {
		return nil, err
	}
	o := &observedLog{log: l, srcs: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		ln, ok := ncclog.ParseLine(sc.Text())
		switch {
		case !ok:
		case ln.Level == ncclog.LevelInfo:
			o.msgs = append(o.msgs, ln.Msg)
		case ln.SrcFile != "":
			o.srcs[fmt.Sprintf("%s:%d", ln.SrcFile, ln.SrcLine)] = true
			if ln.Level == ncclog.LevelWarn && fallbackRe.MatchString(ln.Msg) {
				o.fallbacks = append(o.fallbacks, strings.TrimSpace(ln.Msg))
			}
		}
	}
	return o, nil
}

var (
	patternRe  = regexp.MustCompile(`^Pattern (\d+), crossNic`)
	graphRowRe = regexp.MustCompile(`^ ?\d+ : `)
	pathLineRe = regexp.MustCompile(`^(GPU|NET|NVS|CPU|NIC)/[0-9A-Fa-f-]+ :`)
	// fallbackRe is the WARN of a search that found no graph (every
	// release's src/graph/search.cc ncclTopoCompute).
	fallbackRe = regexp.MustCompile(`^Could not find a path for pattern \d+, falling back to simple order$`)
)

// graphKind names a search pattern (v2.28.9-1 src/graph/graph.h
// NCCL_TOPO_PATTERN_*): 1-3 are the tree patterns, 4 the ring, 5 NVLS,
// 6 CollNetDirect's search.
func graphKind(pattern int) string {
	switch pattern {
	case 1, 2, 3:
		return "tree"
	case 4:
		return "ring"
	case 5:
		return "nvls"
	case 6:
		return "collnet"
	}
	return "pattern " + strconv.Itoa(pattern)
}

// graphBlocks splits printed lines into [GRAPH] search blocks: the
// "Pattern ..." line and the channel rows after it, first block per kind.
func graphBlocks(lines []string) (map[string][]string, []string) {
	out := map[string][]string{}
	var order []string
	for i := 0; i < len(lines); i++ {
		m := patternRe.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		p, _ := strconv.Atoi(m[1])
		kind := graphKind(p)
		block := []string{lines[i]}
		for i+1 < len(lines) && graphRowRe.MatchString(lines[i+1]) {
			i++
			block = append(block, lines[i])
		}
		if _, seen := out[kind]; !seen {
			out[kind] = block
			order = append(order, kind)
		}
	}
	return out, order
}

// systemBlock is the observed ncclTopoPrint output: the "=== System" header,
// the tree of every CPU, the separator and one path line per GPU and NET.
func systemBlock(msgs []string) []string {
	for i, m := range msgs {
		if !strings.HasPrefix(m, "=== System :") {
			continue
		}
		block := []string{m}
		sep := false
		for _, n := range msgs[i+1:] {
			t := strings.TrimLeft(n, " ")
			switch {
			case strings.HasPrefix(n, "====="):
				sep = true
			case !sep && (strings.HasPrefix(t, "+ ") || strings.HasPrefix(n, "CPU/")):
			case sep && pathLineRe.MatchString(n):
			default:
				return block
			}
			block = append(block, n)
		}
		return block
	}
	return nil
}

func trimAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// checkPublic compares one release's prediction with the excerpt.
func checkPublic(c *publicCase, obs *observedLog, rel spec.Version, nodes int) ([]publicItem, error) {
	rs, err := spec.Load(rel)
	if err != nil {
		return nil, err
	}
	sys, err := c.system(nodes)
	if err != nil {
		return nil, err
	}
	comm, err := topoCache.Init(rs, sys, c.env)
	if err != nil {
		return nil, err
	}
	if comm.Err != nil {
		return nil, fmt.Errorf("%s at %s: the model refuses the communicator: %v", c.dir, rel, comm.Err)
	}
	l := obs.log
	var items []publicItem
	add := func(key string, pred, obs []string) {
		pred, obs = trimAll(pred), trimAll(obs)
		items = append(items, publicItem{key: key, pred: pred, obs: obs, agree: slices.Equal(pred, obs)})
	}
	node := &comm.Topo.Nodes[0] // the excerpts are rank 0's lines

	if n := l.Network(); n != "" {
		add("network", []string{comm.Net}, []string{n})
	}
	if g := diagnose.InferPlugin(l); g != nil {
		// the plugin diagnose reads from the log's own lines against the
		// one the source describes (the case's plugin line)
		named := l.Plugin.OFI.Platform != ""
		add("plugin", ofiPluginLines(g.Name, g.Libs, named), ofiPluginLines(c.ofi, nil, named))
	}

	if sysObs := systemBlock(obs.msgs); sysObs != nil {
		add("system", node.System.SystemLines(), sysObs)
	}
	if len(obs.fallbacks) > 0 {
		var pred []string
		for _, m := range node.Log() {
			if fallbackRe.MatchString(m) {
				pred = append(pred, m)
			}
		}
		add("fallback", pred, obs.fallbacks)
	}
	predGraphs, _ := graphBlocks(node.Log())
	obsGraphs, order := graphBlocks(obs.msgs)
	for _, kind := range order {
		add("graph "+kind, predGraphs[kind], obsGraphs[kind])
	}
	if len(l.Channels) > 0 {
		s := l.Channels[0]
		add("channels", []string{comm.Topo.Summary}, []string{s.Line()})
	}
	if rows := diagnose.PredictConns(comm, l); len(rows) > 0 {
		// every network connector line: what follows "via NET/<name>/",
		// and the ring's PXN/GDR flags
		var pred, got []string
		for _, r := range rows {
			pred, got = append(pred, r.Conn+" "+r.Predicted), append(got, r.Conn+" "+r.Observed)
		}
		add("conn", pred, got)
	}
	if s, ok := l.First(ncclog.KindThreadThresholds); ok {
		add("threadThresholds", []string{comm.Model.ThreadThresholdsLine()}, []string{strings.TrimSpace(s.Msg)})
	}
	if m := l.Matrix; m != nil {
		// The matrix is printed by 2.24+; a release without PAT (2.22.3)
		// is compared on the algorithms it has.
		algos := slices.DeleteFunc(slices.Clone(m.Algos), func(a spec.Algo) bool { return a == spec.PAT && !rs.Consts.HasPAT })
		var pred, got []string
		for f := range spec.NumFuncs {
			if !m.Set[f] {
				continue
			}
			row := func(proto [spec.NumProtos]int8, algo [spec.NumAlgos]int8) string {
				s := spec.Func(f).String() + ":"
				for p := range spec.NumProtos {
					s += fmt.Sprintf(" %s=%d", spec.Proto(p), proto[p])
				}
				for _, a := range algos {
					s += fmt.Sprintf(" %s=%d", a, algo[a])
				}
				return s
			}
			pred = append(pred, row(comm.UserEnable.Proto[f], comm.UserEnable.Algo[f]))
			got = append(got, row(m.Proto[f], m.Algo[f]))
		}
		add("matrix", pred, got)
	}
	if len(l.Tables) > 0 {
		t := &l.Tables[0]
		var pred, got []string
		total, agree := 0, 0
		for f := range spec.NumFuncs {
			for _, a := range t.Algos {
				for p := range spec.NumProtos {
					cell, ok := t.Cell(spec.Func(f), a, spec.Proto(p))
					if !ok {
						continue
					}
					total++
					name := fmt.Sprintf("%s/%s/%s ", spec.Func(f), a, spec.Proto(p))
					po := fmt.Sprintf("%.1f/%.1f", comm.Model.Latencies[f][a][p], comm.Model.Bandwidths[f][a][p])
					oo := fmt.Sprintf("%.1f/%.1f", cell.Lat, cell.Bw)
					if po == oo {
						agree++
						continue
					}
					pred, got = append(pred, name+po), append(got, name+oo)
				}
			}
		}
		items = append(items, publicItem{key: "table", pred: pred, obs: got, agree: agree == total,
			agreeCount: fmt.Sprintf("%d of %d cells", agree, total)})
	}
	for _, o := range l.Ops {
		fn := o.Func
		if !o.FuncKnown {
			if c.opFunc < 0 {
				return nil, fmt.Errorf("%s: operation line %q names no collective: expected a func line in the case file", c.dir, o.First.Msg)
			}
			fn = c.opFunc
		}
		dt := spec.Float32
		if o.DTypeKnow {
			dt = o.DType
		}
		op, err := spec.OpFromBytes(fn, o.Bytes, dt, spec.Sum, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %d bytes: %w", c.dir, fn, o.Bytes, err)
		}
		// the operation alone in its group, launched and allocated as the
		// run was (a captured operation may register its buffers)
		gd, err := comm.SelectGroup([]spec.GroupOp{{Op: op, Alloc: c.alloc}}, spec.Launch{Mode: c.launch})
		if err != nil {
			return nil, fmt.Errorf("%s: %s %d bytes: %w", c.dir, fn, o.Bytes, err)
		}
		d := gd.Ops[0]
		withRange := o.ChannelLo >= 0
		pred := diagnose.OpString(d.Algo, d.Proto, d.ChannelLo, d.ChannelHi, withRange)
		if d.Err != nil {
			pred = "error " + d.Err.Result.String()
		}
		got := diagnose.OpString(o.Algo, o.Proto, o.ChannelLo, o.ChannelHi, withRange)
		if o.TimeUs > 0 && d.Err == nil {
			// 2.20-2.23 print the cost model's estimate with the choice;
			// compared at two decimals (NCCL computes it in float)
			pred += fmt.Sprintf(" time %.2f", d.TimeUs)
			got += fmt.Sprintf(" time %.2f", o.TimeUs)
		}
		add(fmt.Sprintf("op %s %d", fn, o.Bytes), []string{pred}, []string{got})
	}
	if regs := l.Reg.Outcomes; len(regs) > 0 {
		pred, got, agree, err := predictRegs(c, comm, regs)
		if err != nil {
			return nil, err
		}
		items = append(items, publicItem{key: "register", pred: trimAll(pred), obs: trimAll(got), agree: agree})
	}
	return items, nil
}

// predictRegs writes each logged registration outcome (ncclog.RegOutcome:
// IPC, NET, CollNet or NVLS, registered or failed) as its operation and
// outcome, and the model's outcome for that operation, launched and
// allocated as the case says (diagnose.RegString: the registration it
// makes, the call that fails, or none). They agree where every line's
// outcome is the model's (diagnose.RegAgrees, a typed comparison; the
// words are for the report). The line names no collective: the case's
// func line does. A one-buffer line does not say whether the operation
// ran in place: either agrees.
func predictRegs(c *publicCase, comm *spec.Comm, regs []ncclog.RegOutcome) (pred, got []string, agree bool, err error) {
	if c.opFunc < 0 {
		return nil, nil, false, fmt.Errorf("%s: a registration line names no collective: expected a func line in the case file", c.dir)
	}
	agree = true
	for _, r := range regs {
		// the operation's bytes as NCCL prints them: the send buffer, the
		// receive buffer for ReduceScatter
		bytes, inPlace := r.Bytes, []bool{false, true}
		if r.Both() {
			bytes, inPlace = r.SendBytes, []bool{r.InPlace}
			if c.opFunc == spec.ReduceScatter {
				bytes = r.RecvBytes
			}
		}
		op, err := spec.OpFromBytes(c.opFunc, bytes, spec.Float32, spec.Sum, 0)
		if err != nil {
			return nil, nil, false, fmt.Errorf("%s: %s registration of %d bytes: %w", c.dir, r.Path, bytes, err)
		}
		what := fmt.Sprintf("%s %d bytes", c.opFunc, bytes)
		if r.Both() && r.InPlace {
			what += " in place"
		}
		outcome, found := "", false
		for _, ip := range inPlace {
			gd, err := comm.SelectGroup([]spec.GroupOp{{Op: op, InPlace: ip, Alloc: c.alloc}}, spec.Launch{Mode: c.launch})
			if err != nil {
				return nil, nil, false, fmt.Errorf("%s: %s: %w", c.dir, what, err)
			}
			o, ok := "no "+r.Path.String()+" registration", false
			if len(gd.Choices) > 0 {
				o, ok = diagnose.RegString(gd.Choices[0], r.Path), diagnose.RegAgrees(gd.Choices[0], r)
			}
			if outcome == "" || ok && !found {
				outcome = o
			}
			found = found || ok
		}
		agree = agree && found
		pred, got = append(pred, what+": "+outcome), append(got, what+": "+r.String())
	}
	return pred, got, agree, nil
}

// publicCaseDirs lists the case directories (those with a "case" file).
func publicCaseDirs(t *testing.T) []string {
	ents, err := os.ReadDir(publicTruthRoot)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(publicTruthRoot, e.Name(), "case")); err == nil {
				dirs = append(dirs, filepath.Join(publicTruthRoot, e.Name()))
			}
		}
	}
	sort.Strings(dirs)
	return dirs
}

func TestPublicTruth(t *testing.T) {
	dirs := publicCaseDirs(t)
	if len(dirs) < minPublicTruthCases {
		t.Errorf("%d public cases under %s, want at least %d", len(dirs), publicTruthRoot, minPublicTruthCases)
	}
	agreeN, differN := 0, 0
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c, err := readPublicCase(dir)
			if err != nil {
				t.Fatal(err)
			}
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil || !bytes.Contains(readme, []byte(c.source)) {
				t.Errorf("%s/README.md must exist and name the source %s", dir, c.source)
			}
			obs, err := readObserved(filepath.Join(dir, "log.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var report strings.Builder
			switch {
			case (c.pin != "" || c.stated != 0 || len(c.argued) > 0) && obs.log.Release != 0:
				t.Fatalf("log.txt prints NCCL %q: the case file must say logged", obs.log.Version)
			case c.stated != 0:
				// the post's word, checked against what the lines' wording allows
				g, err := diagnose.InferRelease(obs.log)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(g.Candidates, c.stated) {
					t.Errorf("the post states NCCL %s, but diagnose infers %v from log.txt", c.stated, g.Candidates)
				}
				fmt.Fprintf(&report, "source %s\nlog: no NCCL version line; the post states %s (the lines allow %s)\n", c.source, c.stated, releaseSpan(g.Candidates))
			case len(c.argued) > 0:
				g, err := diagnose.InferRelease(obs.log)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range c.argued {
					if !slices.Contains(g.Candidates, v) {
						t.Errorf("the README argues NCCL %s, but diagnose infers %v from log.txt", v, g.Candidates)
					}
				}
				if len(g.Candidates) == len(spec.Releases) {
					t.Errorf("the lines allow every release, so they check nothing of the README's argument for %v", c.argued)
				}
				fmt.Fprintf(&report, "source %s\nlog: no NCCL version line; the README argues %v (the lines allow %s)\n", c.source, c.argued, releaseSpan(g.Candidates))
			case c.pin != "" && c.pin != "forms" && !obs.srcs[c.pin]:
				t.Fatalf("log.txt prints no WARN or TRACE at %s, which the case file says pins its release", c.pin)
			case c.pin != "":
				// diagnose's own inference must reach the releases the case
				// file states from the same log
				g, err := diagnose.InferRelease(obs.log)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(g.Candidates, c.releases) {
					t.Errorf("diagnose infers releases %v from log.txt, the case file says %v", g.Candidates, c.releases)
				}
				by := c.pin
				if by == "forms" {
					by = "the wording of its lines"
				}
				fmt.Fprintf(&report, "source %s\nlog: no NCCL version line; release pinned by %s\n", c.source, by)
			case obs.log.Release != c.logged:
				t.Fatalf("log.txt prints NCCL %q (release %s), the case file says logged %s", obs.log.Version, obs.log.Release, c.logged)
			default:
				fmt.Fprintf(&report, "source %s\nlog: NCCL %s\n", c.source, obs.log.Version)
			}
			for _, rel := range c.releases {
				items, err := checkPublic(c, obs, rel, c.nodes)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&report, "\nmodelled release %s\n", rel)
				seen := map[string]bool{}
				for _, it := range items {
					seen[it.key] = true
					reason, listed := c.expectation(it.key, rel)
					switch {
					case !listed:
						t.Errorf("%s at %s: item %q is compared but the case file lists it neither agree nor differ (it %s)", dir, rel, it.key, verdict(it.agree))
					case reason == "" && !it.agree:
						t.Errorf("%s at %s: %q was expected to agree and differs:\n%s", dir, rel, it.key, diffText(it))
					case reason != "" && it.agree:
						t.Errorf("%s at %s: %q was listed as a known disagreement (%s) and now agrees: update the case file and the docs", dir, rel, it.key, reason)
					}
					if it.agree {
						agreeN++
					} else {
						differN++
					}
					writeItem(&report, it, reason)
				}
				for _, k := range c.order {
					name, at, scoped := strings.Cut(k, "@")
					if scoped && at != rel.String() {
						continue
					}
					if !seen[name] {
						t.Errorf("%s at %s: the case file lists %q, which the log does not print", dir, rel, k)
					}
				}
			}
			goldenfile.Check(t, filepath.Join(dir, "check.golden"), report.String(), *update)
		})
	}
	t.Logf("public truth: %d cases, %d items agree, %d known disagreements", len(dirs), agreeN, differN)
}

// TestPublicPluginFromLog: on every public case whose log prints
// aws-ofi-nccl's version, the plugin diagnose reads from the log alone
// (InferPlugin) predicts every item as the plugin the case's source
// describes does, so diagnose needs no plugin line for them.
func TestPublicPluginFromLog(t *testing.T) {
	n := 0
	for _, dir := range publicCaseDirs(t) {
		c, err := readPublicCase(dir)
		if err != nil {
			t.Fatal(err)
		}
		obs, err := readObserved(filepath.Join(dir, "log.txt"))
		if err != nil {
			t.Fatal(err)
		}
		g := diagnose.InferPlugin(obs.log)
		if g == nil {
			if c.ofi != "" {
				t.Errorf("%s: the case names %s but diagnose reads no aws-ofi-nccl version from the log", dir, c.ofi)
			}
			continue
		}
		if len(g.Libs) == 0 {
			t.Errorf("%s: %s: not usable: %s", dir, g.Name, g.Missing)
			continue
		}
		n++
		inferred := *c
		inferred.ofi, inferred.libs = "", g.Libs
		for _, rel := range c.releases {
			want, err := checkPublic(c, obs, rel, c.nodes)
			if err != nil {
				t.Fatal(err)
			}
			got, err := checkPublic(&inferred, obs, rel, c.nodes)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if want[i].key == "plugin" {
					continue // compares the two plugins themselves
				}
				if i >= len(got) || got[i].key != want[i].key || !slices.Equal(got[i].pred, want[i].pred) {
					t.Errorf("%s at %s: item %q predicted differently with the plugin read from the log (%s)", dir, rel, want[i].key, g.Name)
				}
			}
		}
	}
	if n < 4 {
		t.Errorf("%d public cases print aws-ofi-nccl's version, expected at least the 4 of g5, g6e and g7e", n)
	}
}

// TestPublicTruthDetectsChange is the negative control: every case, run
// on a machine with one more node than the post describes, must disagree
// somewhere, so the comparison above cannot pass whatever the model says.
// A case whose run was captured into a CUDA graph may instead disagree
// when launched on the stream: what it checks is the capture (its
// registration), which one more node of the same kind leaves alone.
func TestPublicTruthDetectsChange(t *testing.T) {
	for _, dir := range publicCaseDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			c, err := readPublicCase(dir)
			if err != nil {
				t.Fatal(err)
			}
			obs, err := readObserved(filepath.Join(dir, "log.txt"))
			if err != nil {
				t.Fatal(err)
			}
			differs := func(c *publicCase, nodes int) bool {
				items, err := checkPublic(c, obs, c.releases[0], nodes)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range items {
					if reason, _ := c.expectation(it.key, c.releases[0]); !it.agree && reason == "" {
						return true
					}
				}
				return false
			}
			if differs(c, c.nodes+1) {
				return
			}
			if c.launch == spec.LaunchGraph {
				onStream := *c
				onStream.launch = spec.LaunchStream
				if differs(&onStream, c.nodes) {
					return
				}
				t.Errorf("%s launched on the stream instead of a CUDA graph still agrees on every item: the check does not constrain the capture", dir)
			}
			t.Errorf("%s with %d nodes instead of %d still agrees on every item: the check does not constrain the machine", dir, c.nodes+1, c.nodes)
		})
	}
}

// releaseSpan writes a sorted list of releases as "first to last (n)".
func releaseSpan(vs []spec.Version) string {
	if len(vs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%s to %s, %d releases", vs[0], vs[len(vs)-1], len(vs))
}

func verdict(agree bool) string {
	if agree {
		return "agrees"
	}
	return "differs"
}

// word is the report's verdict column.
func word(agree bool) string {
	if agree {
		return "agree"
	}
	return "differ"
}

func diffText(it publicItem) string {
	var b strings.Builder
	n := max(len(it.pred), len(it.obs))
	shown := 0
	for i := 0; i < n && shown < 6; i++ {
		var p, o string
		if i < len(it.pred) {
			p = it.pred[i]
		}
		if i < len(it.obs) {
			o = it.obs[i]
		}
		if p != o {
			fmt.Fprintf(&b, "  line %d\n    predicted: %q\n    observed:  %q\n", i+1, p, o)
			shown++
		}
	}
	if len(it.pred) != len(it.obs) {
		fmt.Fprintf(&b, "  predicted %d lines, observed %d\n", len(it.pred), len(it.obs))
	}
	return b.String()
}

func writeItem(b *strings.Builder, it publicItem, reason string) {
	switch {
	case it.agreeCount != "":
		fmt.Fprintf(b, "%-6s %s (%s)\n", word(it.agree), it.key, it.agreeCount)
	case len(it.obs) > 1:
		fmt.Fprintf(b, "%-6s %s (%d lines)\n", word(it.agree), it.key, len(it.obs))
	default:
		fmt.Fprintf(b, "%-6s %s: %s\n", word(it.agree), it.key, strings.Join(it.obs, " "))
	}
	if !it.agree {
		if reason != "" {
			fmt.Fprintf(b, "  known: %s\n", reason)
		}
		b.WriteString(diffText(it))
	}
}

func TestParsePublicCaseErrors(t *testing.T) {
	base := "source https://example.org/x\nlogged 2.22.3\nrelease 2.22.3\npreset dgx-h100\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"ok", base + "agree channels\n", ""},
		{"unknown directive", base + "frobnicate 1\n", "case:5: \"frobnicate 1\": expected source, logged"},
		{"bad release", "release two\n", "case:1: \"release two\": expected release X.Y.Z"},
		{"bad nodes", base + "nodes 0\n", "case:5: \"nodes 0\": expected nodes N (N >= 1)"},
		{"env without NCCL_", base + "env FOO=1\n", "expected env NCCL_NAME=VALUE"},
		{"differ without reason", base + "differ channels\n", "expected differ ITEM: REASON"},
		{"item twice", base + "agree channels\nagree channels\n", "case:6: item \"channels\" listed twice"},
		{"no machine", "source s\nlogged 2.22.3\nrelease 2.22.3\n", "expected exactly one of topo and preset"},
		{"two machines", base + "topo x.xml\n", "expected exactly one of topo and preset"},
		{"no source", "logged 2.22.3\nrelease 2.22.3\npreset dgx-h100\n", "no source line"},
		{"unlogged", "source s\nunlogged enqueue.cc:1182\nrelease 2.18.3\npreset dgx-h100\n", ""},
		{"logged and unlogged", base + "unlogged enqueue.cc:1182\n", "expected exactly one of logged, unlogged, stated and argued"},
		{"neither logged nor unlogged", "source s\nrelease 2.22.3\npreset dgx-h100\n", "expected exactly one of logged, unlogged, stated and argued"},
		{"bad pin", "source s\nunlogged enqueue.cc\nrelease 2.18.3\npreset dgx-h100\n", "expected unlogged FILE:LINE"},
		{"pinned by forms", "source s\nunlogged forms\nrelease 2.22.3\npreset dgx-h100\n", ""},
		{"stated", "source s\nstated 2.27.5\nrelease 2.27.5\npreset dgx-h100\n", ""},
		{"stated and logged", base + "stated 2.22.3\n", "expected exactly one of logged, unlogged, stated and argued"},
		{"stated not modelled here", "source s\nstated 2.27.5\nrelease 2.27.3\npreset dgx-h100\n", "stated 2.27.5 must be one of the releases"},
		{"bad stated", "source s\nstated soon\nrelease 2.27.5\npreset dgx-h100\n", "expected stated X.Y.Z"},
		{"func", base + "func AllReduce\n", ""},
		{"argued", "source s\nargued 2.20.3 2.20.5\nrelease 2.20.3 2.20.5 2.21.5\npreset dgx-h100\n", ""},
		{"argued outside the releases", "source s\nargued 2.20.3\nrelease 2.20.5\npreset dgx-h100\n", "every argued release must be one of the releases"},
		{"argued nothing", "source s\nargued\nrelease 2.20.5\npreset dgx-h100\n", "expected argued X.Y.Z"},
		{"bad func", base + "func Gather\n", "expected func NAME"},
		{"scoped", base + "agree channels @2.22.3\nagree channels\n", ""},
		{"bad scope", base + "agree channels @next\n", "expected agree ITEM @X.Y.Z"},
		{"driver fact", base + "driver p2p-not-supported\n", ""},
		{"unknown driver fact", base + "driver fast\n", "expected driver p2p-not-supported"},
		{"rdma-v6 plugin", "source s\nlogged 2.26.5\nrelease 2.26.5\ntopo t.xml\nplugin rdma-v6\n", ""},
		{"rdma-v6 with a preset", base + "plugin rdma-v6\n", "plugin rdma-v6 goes with a topo"},
		{"sharp-v6 plugin", "source s\nlogged 2.19.3\nrelease 2.19.3\ntopo t.xml\nplugin sharp-v6\n", ""},
		{"unknown plugin", base + "plugin nccom\n", "expected plugin sharp, plugin sharp-v6, plugin rdma-v6 or plugin aws-ofi-nccl VERSION PLATFORM"},
		{"aws-ofi-nccl plugin", "source s\nlogged 2.29.2\nrelease 2.29.2\ntopo t.xml\nplugin aws-ofi-nccl 1.18.0 g7e.8xlarge\n", ""},
		{"aws-ofi-nccl unknown release", "source s\nlogged 2.29.2\nrelease 2.29.2\ntopo t.xml\nplugin aws-ofi-nccl 1.18.9 g7e.8xlarge\n", "case:5: aws-ofi-nccl version \"1.18.9\": expected one of"},
		{"aws-ofi-nccl without platform", "source s\nlogged 2.29.2\nrelease 2.29.2\ntopo t.xml\nplugin aws-ofi-nccl 1.18.0\n", "expected plugin sharp"},
		{"aws-ofi-nccl with a preset", base + "plugin aws-ofi-nccl 1.18.0 g7e.8xlarge\n", "plugin aws-ofi-nccl goes with a topo"},
		{"graph launch", base + "launch graph\nalloc cudamalloc\n", ""},
		{"unknown launch", base + "launch later\n", "expected launch stream or launch graph"},
		{"window alloc", base + "alloc cumem-host\n", "expected alloc cumem or alloc cudamalloc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parsePublicCase("d", "case", []byte(tc.text))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// FuzzParsePublicCase: any text gives a case or an error, never a panic.
func FuzzParsePublicCase(f *testing.F) {
	for _, dir := range []string{"gcp-a3-high-1node-2.22.3", "nccl-tests-319-hgx-h100-2nodes-ib-2.26.2"} {
		if data, err := os.ReadFile(filepath.Join(publicTruthRoot, dir, "case")); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("differ x:\nnodes -1\nenv NCCL_=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parsePublicCase("d", "case", data)
		if err == nil && (c.source == "" || len(c.releases) == 0 || c.nodes < 1) {
			t.Fatalf("accepted an incomplete case: %+v", c)
		}
	})
}

// TestPublicHarnessOnCapture runs the comparison on one of the project's own
// GPU captures (2 x H200, 2.28.9, golden/testdata/captured): not public
// truth, but the one log at hand that prints the tuning table and
// per-operation lines, so the table and operation comparators above are
// exercised on real NCCL output. hw's TestCheckCommittedCaptures already
// asserts that this capture agrees in full; here every item must agree too,
// and a wrong protocol must not.
func TestPublicHarnessOnCapture(t *testing.T) {
	dir := filepath.Join("testdata", "captured", "h200x2-2.28.9", "baseline")
	if _, err := os.Stat(filepath.Join(dir, "nccl.log")); err != nil {
		t.Fatalf("no capture at %s: the committed capture is missing", dir)
	}
	obs, err := readObserved(filepath.Join(dir, "nccl.log"))
	if err != nil {
		t.Fatal(err)
	}
	// hw forces NCCL_NVLS_ENABLE=0 on the project's machines (hw/safety.go);
	// results.json records it in the run's environment.
	c := &publicCase{dir: dir, topo: "topo.xml", nodes: 1, env: spec.Env{"NCCL_NVLS_ENABLE": "0"}}
	rel := spec.MakeVersion(2, 28, 9)
	items, err := checkPublic(c, obs, rel, 1)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, it := range items {
		k, _, _ := strings.Cut(it.key, " ")
		kinds[k]++
		if !it.agree {
			t.Errorf("%s differs on the capture:\n%s", it.key, diffText(it))
		}
	}
	t.Logf("compared on the capture: %v", kinds)
	for _, k := range []string{"network", "system", "graph", "channels", "threadThresholds", "table", "op"} {
		if kinds[k] == 0 {
			t.Errorf("the capture compared no %q item: %v", k, kinds)
		}
	}
	c.env["NCCL_PROTO"] = "Simple"
	items, err = checkPublic(c, obs, rel, 1)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for _, it := range items {
		if !it.agree && (it.key == "table" || strings.HasPrefix(it.key, "op ")) {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("with NCCL_PROTO=Simple the table and every operation still agree: the comparators do not constrain the model")
	}
}

// TestSummaryText: the observed channel summary is written back in the
// form its release printed, read by ncclog from each of the three forms.
func TestSummaryText(t *testing.T) {
	for _, line := range []string{
		"24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer",
		"16 coll channels, 0 nvls channels, 16 p2p channels, 16 p2p channels per peer",
		"10 coll channels, 16 p2p channels, 1 p2p channels per peer",
	} {
		l, err := ncclog.Parse(strings.NewReader("h:1:2 [0] NCCL INFO "+line+"\n"), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Channels) != 1 {
			t.Fatalf("%q: ncclog read %d summaries", line, len(l.Channels))
		}
		if got := l.Channels[0].Line(); got != line {
			t.Errorf("summaryText = %q, want %q", got, line)
		}
	}
}
