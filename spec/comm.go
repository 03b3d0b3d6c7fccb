package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Comm is a communicator as NCCL's init leaves it: the network in use, the
// CollNet and NVLS support bits, the graphs' channel counts, the algorithms
// and protocols the model left enabled, the tuner, and the Trace of every
// init gate. Select reads it for each operation. A Comm whose init failed has
// Err set; NCCL returns that error from ncclCommInitRank and no operation
// runs.
type Comm struct {
	// gin is the communicator's GIN after init (Comm.GIN).
	gin GINState

	Release Version
	System  *System
	// Env is the effective environment: the request's variables, then the
	// values of NCCL's config files for variables left unset, then the
	// ncclConfig_t fields the gates read that stood, under their variables
	// (fromConfig names those).
	Env Env

	NRanks, NNodes int
	LocalRanks     []int // per node
	MaxLocalRanks  int
	MinSM, MaxSM   int

	// Net is the name of the network in use ("Socket", "IB", a plugin's name).
	Net string
	// NetVia says how the network is reached: the transport and the plugin
	// ("IB via the SHARP plugin (IBext_v8)", "Socket (NCCL's internal TCP
	// transport)").
	NetVia string
	// NetPlugin describes the external plugin library the comm uses, or the
	// one that was opened but not used; nil when none was opened.
	NetPlugin *NetPluginInfo

	// CollNetAttached is collNetSupport(comm): a CollNet object is attached.
	CollNetAttached bool
	// CollNetSupport is the communicator's final CollNet enable
	// (comm->collNetSupport in 2.22, config.collnetEnable in 2.28).
	CollNetSupport bool
	CollNetHeads   int
	// CollNetMatrix[op][type] is the gathered reduceSupport matrix (op is
	// Sum, Prod, Max, Min).
	CollNetMatrix                            [4][NumDataTypes]bool
	CollNetIAllGather, CollNetIReduceScatter bool

	NVLSSupport  bool
	NVLSChannels int
	MNNVL        bool
	// NVLDomainSize is comm->nvlDomainSize (2.30.3+): the ranks of rank
	// 0's fabric cluster, its clique's and the other cliques'; 0 without
	// MNNVL or before 2.30.3. CrossClique is comm->p2pCrossClique:
	// NCCL_MNNVL_CROSS_CLIQUE on an MNNVL communicator whose NVL domain
	// holds more than its clique. Ranks of other cliques of the cluster
	// are then MNNVL peers reached over CUDA P2P, and symmetric kernels
	// are not used.
	NVLDomainSize int
	CrossClique   bool

	// Topo is the topology stage's outcome (G-TOPO-1): graphs per node and
	// agreed, channel counts, the [GRAPH] lines. Nil when init failed first.
	Topo *topo.Result `json:"-"`
	// Model is the tuning model (G-TUNE-TABLE-1); nil when init failed.
	Model *tuning.Model `json:"-"`

	// Graphs are the searched graphs after the consensus across ranks.
	Graphs Graphs
	// NChannels is comm->nChannels after consensus and post-set.
	NChannels int

	// IntraTransport is how ranks of one node talk: "P2P", "SHM" or "NET".
	IntraTransport string
	// SharedProcess: two ranks of one host run in one process (the
	// system's Procs is per-node and a host has several GPUs): NCCL's
	// directMode, intraRanks > 1 (G-PROC-1).
	SharedProcess bool
	// P2PConn is the path of the intra-node P2P connections' lines
	// ("P2P/direct pointer", "P2P/CUMEM/read"; G-TRANSPORT-CONN-1).
	P2PConn        string
	RuntimeConnect bool

	// UserEnable is the matrix NCCL_ALGO/NCCL_PROTO leave; Enabled is the
	// model's final per (function, algorithm, protocol) eligibility at init
	// (bandwidth non-zero), with the rule that zeroed each cell.
	UserEnable tuning.EnableMatrix
	Enabled    [NumFuncs][NumAlgos][NumProtos]bool
	ZeroedBy   [NumFuncs][NumAlgos][NumProtos]RuleID
	// RingBackup[f][p] is 2.22.3's saved Ring availability used as a
	// per-operation backup when NCCL_ALGO excluded Ring.
	RingBackup [NumFuncs][NumProtos]bool
	// RingRestored[f][p] marks the Ring cells G-TUNE-RINGRESTORE-1 brought
	// back for a function NCCL_ALGO/NCCL_PROTO left with none (2.19.1–2.23.4):
	// running one is a fallback.
	RingRestored [NumFuncs][NumProtos]bool
	// RingKept[f] marks a function other than AllReduce whose Ring
	// NCCL_ALGO turned off and 2.18.x kept (G-TUNE-EN-1): running it is a
	// fallback.
	RingKept  [NumFuncs]bool
	PATEnable bool

	Tuner     *tuning.TunerBehaviour
	TunerPath string
	TunerABI  int
	// ofiTuner is a modelled plugin tuner's context (Tuner.Model), nil
	// when it declined at init or none is loaded.
	ofiTuner *ofiRegionTuner

	Err      *NCCLError
	Trace    Trace
	Evidence Evidence

	rs *Ruleset
	// failedBy is the init rule whose failure Err is (an onFail rule only
	// says what the failure does next).
	failedBy RuleID
	// fromConfig holds, for each variable G-ENV-CONFIG-1 wrote from the
	// communicator's ncclConfig_t, the fact a gate cites for it ("config
	// netName"="Socket"): the value came from the config, not from the
	// environment. Nil when no config field stood.
	fromConfig map[string]Fact
	// ctaPolicy cites where the CTA policy came from (nil when
	// NCCL_CTA_POLICY and config CTAPolicy are unset), made at init so
	// that the per-operation verdicts share it.
	ctaPolicy []Fact
	// opRules are the ruleset's per-operation rules in order (rs.Op
	// resolved once, for Select); evMemo keeps the evidence maps the
	// decisions share.
	opRules []*Rule
	evMemo  *evidenceMemo
}

// NetPluginInfo is what NCCL found in an external network plugin library.
type NetPluginInfo struct {
	Path       string `json:"path"`
	OpenedAs   string `json:"opened_as"` // the name dlopen succeeded with
	Found      bool   `json:"found"`
	NetABI     int    `json:"abi"`         // 0: no acceptable ncclNetPlugin symbol
	CollNetABI int    `json:"collnet_abi"` // 0: none
	Name       string `json:"name"`        // the plugin's ncclNet_t name
}

// Graphs are the five graphs of initTransportsRank.
type Graphs struct {
	Ring, Tree, CollNetChain, CollNetDirect, NVLS GraphInfo
}

// GraphInfo is what the gates and the model read of one graph.
type GraphInfo struct {
	Searched  bool   `json:"searched"`
	NChannels int    `json:"nChannels"`
	Pattern   int    `json:"pattern"`
	TypeIntra string `json:"typeIntra,omitempty"`
	TypeInter string `json:"typeInter,omitempty"`
	// Estimated marks a graph whose channel count comes from the structural
	// rule (NVSwitch, compute capability, CollNet devices) rather than a
	// full search of the topology.
	Estimated bool `json:"estimated,omitempty"`
}

// FailedBy is the verdict of the init gate whose failure Err is; false
// when init succeeded.
func (c *Comm) FailedBy() (Verdict, bool) {
	if c.Err == nil {
		return Verdict{}, false
	}
	for _, v := range c.Trace {
		if v.Rule == c.failedBy && v.Outcome == Fail {
			return v, true
		}
	}
	return Verdict{}, false
}

// Ruleset returns the ruleset the communicator was built with.
func (c *Comm) Ruleset() *Ruleset { return c.rs }

// initRun is one walk down the init rules.
type initRun struct {
	rs    *Ruleset
	comm  *Comm
	env   Env
	nodes []*nodeState // one per distinct node
	cur   *nodeState   // the node per-node rules evaluate
	// failed is set when communicator init fails; later rules are skipped.
	failed *NCCLError
	// err is a modelling failure (a topology the search cannot handle):
	// Init stops and returns it.
	err error
	// hostOf[i] is the topology host (spec/topo Search input) of node i.
	hostOf []int
	cache  *Cache
	// multiRankGPU is isMultiRankGpu (2.30.3–2.30.4): G-DEV-DUP-1 allowed
	// ranks sharing a GPU, so ncclNvlsInit is not called.
	multiRankGPU bool
	out          []Verdict  // verdicts emitted by the rule being evaluated
	cs           *cellState // the model's cell eligibility
}

// nodeState is what the per-node rules compute for one (kind of) node.
type nodeState struct {
	nodes []int // node indices sharing this state
	node  *Node

	// library discovery and ABI
	libTried   []string // names tried, in order
	libMissing []string // ENOENT names
	lib        *Library
	libName    string
	libs       []*pluginEntry // 2.28: the NCCL_NET_PLUGIN list
	netABI     int
	collNetABI int

	// network state and selection
	nets        []*netCand
	chosen      *netCand
	collNetOK   bool // the chosen plugin's CollNet init+devices succeeded
	collNetDevs int

	collNetEnable bool
	nvlsGPU       []bool // per local GPU: nvlsSupport after CAP
	nvlsChannels  int
	nvlsEarlyOff  string // why NVLS was turned off before the capability query
	ibPlane       ibPlaneState

	graphs Graphs

	tunerLib  *Library
	tunerPath string
	tunerABI  int

	// the external GIN plugin's library and accepted version (2.28.7+)
	ginLib *Library
	ginABI int
	// the GIN the communicator has (ginTypeNone, ginTypeProxy,
	// ginTypeGDAKI; ncclGinState.ginType) and its name; the RMA object
	// assigned (empty: none)
	ginType int
	ginName string
	rmaName string
}

type pluginEntry struct {
	name   string
	lib    *Library
	opened string
	netABI int
	cnABI  int
	state  string // loadFailed, initReady, enabled, disabled
}

// netCand is a network in NCCL's candidate order.
type netCand struct {
	name     string
	external *Library
	abi      int
	enabled  bool
	why      string
	devices  int
	logs     []string
}

// emit records a verdict of the rule being evaluated.
func (r *initRun) emit(v Verdict) { r.out = append(r.out, v) }

// fail marks communicator init as failed with NCCL's error.
func (r *initRun) fail(res Result, msg string) {
	if r.failed == nil {
		r.failed = &NCCLError{Result: res, Message: msg, Call: "ncclCommInitRank"}
	}
}

// Init walks the init rules of rs over a system and environment and returns
// the communicator NCCL would build. The error is for malformed input only;
// NCCL refusing to build the communicator is Comm.Err.
func Init(rs *Ruleset, sys *System, env Env) (*Comm, error) {
	return initWith(rs, sys, env, nil)
}

func initWith(rs *Ruleset, sys *System, env Env, cache *Cache) (*Comm, error) {
	if rs == nil {
		return nil, fmt.Errorf("no ruleset")
	}
	if err := sys.Validate(); err != nil {
		return nil, err
	}
	if err := CheckSizeEnv(rs, env); err != nil {
		return nil, err
	}
	if err := rs.CheckConfig(sys.CommConfig); err != nil {
		return nil, err
	}
	c := &Comm{
		Release:  rs.Version,
		System:   sys,
		NRanks:   sys.NRanks(),
		NNodes:   sys.NNodes(),
		Evidence: Evidence{},
		rs:       rs,
		evMemo:   &evidenceMemo{},
	}
	for _, nd := range sys.Nodes {
		c.LocalRanks = append(c.LocalRanks, len(nd.GPUs))
	}
	c.MaxLocalRanks = sys.MaxLocalRanks()
	c.SharedProcess = sys.Procs != ProcsPerGPU && c.MaxLocalRanks > 1
	c.MinSM, c.MaxSM = sys.MinMaxSM()
	c.Env = env.Clone()
	if c.Env == nil {
		c.Env = Env{}
	}

	c.opRules = make([]*Rule, len(rs.Op))
	for i, id := range rs.Op {
		c.opRules[i] = rs.rules[id]
	}
	run := &initRun{rs: rs, comm: c, env: c.Env, cache: cache}
	run.groupNodes()
	// most rules emit one verdict, a node rule one per kind of node
	n := len(rs.Init)
	for _, id := range rs.Init {
		if rs.rules[id].node {
			n += len(run.nodes) - 1
		}
	}
	c.Trace = make(Trace, 0, n)
	for _, id := range rs.Init {
		rule := rs.rules[id]
		if rule.onFail {
			continue
		}
		if run.failed != nil {
			c.Trace = append(c.Trace, Verdict{Rule: id, Layer: rule.Layer, Cap: rule.Cap, Outcome: Skip,
				Why: "not reached: communicator init already failed", Ref: &rule.Ref})
			continue
		}
		run.evalInit(rule)
		if run.err != nil {
			return nil, run.err
		}
	}
	if run.failed != nil {
		c.failedBy = decisiveInit(c.Trace)
		for i, id := range rs.Init {
			if rule := rs.rules[id]; rule.onFail {
				n := len(c.Trace)
				run.evalInit(rule)
				c.Trace = placeVerdicts(c.Trace, n, rs.Init[i+1:])
			}
		}
	}
	if c.NetPlugin == nil {
		// G-MNNVL-1 fills it on the way; releases before 2.20.3 have no
		// MNNVL rule.
		run.netPluginInfo()
	}
	c.gin = run.ginState()
	c.Err = run.failed
	return c, nil
}

// placeVerdicts moves the verdicts from t[n:] before the first verdict of
// t[:n] whose rule is one of after (the rules that follow theirs), so that
// a rule evaluated late still stands in the ruleset's order.
func placeVerdicts(t Trace, n int, after []RuleID) Trace {
	for j := range n {
		if slices.Contains(after, t[j].Rule) {
			vs := slices.Clone(t[n:])
			copy(t[j+len(vs):], t[j:n])
			copy(t[j:], vs)
			return t
		}
	}
	return t
}

// groupNodes puts identical nodes together so that per-node rules run once
// per kind of node (a 1,024-node cluster usually has one kind).
func (r *initRun) groupNodes() {
	sys := r.comm.System
	// the host name is a label: nodes that differ only in it behave alike
	byPrint := map[string]*nodeState{}
	printed := 0 // groups in byPrint: fingerprints are taken only once a node does not share the previous one's facts
	var buf []byte
	var prev *nodeState
	for i := range sys.Nodes {
		if i > 0 && sharesNode(&sys.Nodes[i-1], &sys.Nodes[i]) {
			prev.nodes = append(prev.nodes, i)
			continue
		}
		if i > 0 {
			for ; printed < len(r.nodes); printed++ {
				g := r.nodes[printed]
				byPrint[string(nodeFingerprint(nil, g.node))] = g
			}
			buf = nodeFingerprint(buf[:0], &sys.Nodes[i])
			if g, ok := byPrint[string(buf)]; ok {
				g.nodes = append(g.nodes, i)
				prev = g
				continue
			}
		}
		g := &nodeState{nodes: []int{i}, node: &sys.Nodes[i]}
		r.nodes = append(r.nodes, g)
		if i > 0 {
			byPrint[string(buf)] = g
			printed++
		}
		prev = g
	}
}

// evalInit runs one init rule: per node for node rules (recording other
// nodes' verdicts only where they differ from node 0's), once otherwise.
func (r *initRun) evalInit(rule *Rule) {
	c := r.comm
	fill := func(vs []Verdict) []Verdict {
		for i := range vs {
			vs[i].Rule = rule.ID
			vs[i].Layer = rule.Layer
			if vs[i].Cap == "" {
				vs[i].Cap = rule.Cap
			}
			vs[i].Ref = &rule.Ref
		}
		return vs
	}
	// r.out is reused rule after rule: its verdicts are copied into the
	// trace
	if !rule.node {
		r.cur = r.nodes[0]
		r.out = r.out[:0]
		rule.init(r)
		c.Trace = append(c.Trace, fill(r.out)...)
		r.raise(r.out)
		return
	}
	var first []Verdict
	for gi, g := range r.nodes {
		r.cur = g
		r.out = r.out[:0]
		rule.init(r)
		vs := fill(r.out)
		if gi == 0 {
			c.Trace = append(c.Trace, vs...)
			first = c.Trace[len(c.Trace)-len(vs):]
			r.raise(vs)
			continue
		}
		if !sameVerdicts(first, vs) {
			for i := range vs {
				vs[i].Scope = "node " + strconv.Itoa(g.nodes[0])
			}
			c.Trace = append(c.Trace, vs...)
		}
	}
}

func (r *initRun) raise(vs []Verdict) {
	for _, v := range vs {
		if v.Outcome == Pass && v.Cap != "" && v.Level > 0 {
			r.comm.Evidence.Raise(v.Cap, v.Level)
		}
		if v.Cap != "" {
			if _, ok := r.comm.Evidence[v.Cap]; !ok {
				r.comm.Evidence[v.Cap] = LevelNone
			}
		}
	}
}

func sameVerdicts(a, b []Verdict) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Outcome != b[i].Outcome || a[i].WhyText() != b[i].WhyText() {
			return false
		}
	}
	return true
}

// allNodes calls f for every node state.
func (r *initRun) allNodes(f func(*nodeState)) {
	for _, g := range r.nodes {
		f(g)
	}
}

// env helpers ---------------------------------------------------------------

// intParam reads an NCCL_PARAM the way ncclLoadParam does: unset or empty →
// default; otherwise strtoll(value, 0) with glibc semantics (leading blanks
// and sign, 0x and 0 prefixes, parse stops at the first bad character, no
// digits → 0); overflow → the default with an "Invalid value" line.
// (v2.22.3-1 / v2.28.9-1 src/misc/param.cc ncclLoadParam)
func intParam(env Env, name string, def int64) (val int64, set bool, log string) {
	s, ok := env.Lookup(name)
	if !ok || s == "" {
		return def, false, ""
	}
	v, overflow := strtoll(s)
	if overflow {
		return def, true, fmt.Sprintf("Invalid value %s for %s, using default %d.", s, name, def)
	}
	return v, true, fmt.Sprintf("%s set by environment to %d.", name, v)
}

// strtoll is glibc's strtoll(s, NULL, 0) (nccl.Strtoll base 0); overflow
// reports ERANGE.
func strtoll(s string) (v int64, overflow bool) {
	p := nccl.Strtoll(s, 0)
	return p.Value, p.Range
}

// strtolInt is (int)strtol(s, NULL, 0) as NCCL uses it for
// NCCL_COLLNET_ENABLE in 2.28: the long is truncated to int.
func strtolInt(s string) int {
	v, _ := strtoll(s)
	return int(int32(v))
}

// boolWord prints NCCL's 0/1.
func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func notIf(b bool) string {
	if b {
		return ""
	}
	return "not "
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = "v" + strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
