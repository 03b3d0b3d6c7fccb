package ncclog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// Proof is one log line that proves a capability reached a level, or one
// that shows a gate stopping it (then Level is the level it failed to
// reach).
type Proof struct {
	Level spec.Level  `json:"level"`
	Rule  spec.RuleID `json:"rule,omitempty"`
	At    Loc         `json:"at"`
	Msg   string      `json:"msg"`
	// Why says in words what the line proves.
	Why string `json:"why"`
	// Count is how many lines of this kind the log has.
	Count int `json:"count,omitempty"`
}

// CapEvidence is the evidence ladder of one capability.
type CapEvidence struct {
	Cap spec.Capability `json:"cap"`
	// Level is the highest level a line proves (lower levels are implied).
	Level spec.Level `json:"level"`
	// Proofs are the lines behind the levels reached, lowest first.
	Proofs []Proof `json:"proofs,omitempty"`
	// Blocks are gates the log shows failing for this capability.
	Blocks []Proof `json:"blocks,omitempty"`
	// Off is set when an environment variable switched the capability off.
	Off *Proof `json:"off,omitempty"`
	// Next says what the log lacks for the next level.
	Next string `json:"next,omitempty"`
}

// Top returns the proof of the highest level reached, if any.
func (c *CapEvidence) Top() (Proof, bool) {
	var best Proof
	ok := false
	for _, p := range c.Proofs {
		if !ok || p.Level > best.Level {
			best, ok = p, true
		}
	}
	return best, ok
}

// Observation is what a log proves, in spec's terms.
type Observation struct {
	Release spec.Version `json:"release,omitempty"`
	// Env is every NCCL_* variable NCCL reported, plus the ones the caller
	// says were set (ObserveWith).
	Env spec.Env `json:"env,omitempty"`
	// Trace holds one verdict per (rule, outcome) the log shows, in NCCL's
	// evaluation order; per-operation verdicts have Scope "op".
	Trace spec.Trace `json:"trace"`
	// Decisions are the per-operation choices and errors NCCL printed.
	Decisions []spec.Decision `json:"decisions,omitempty"`
	// DecisionsAt is where each decision's first line is (parallel to
	// Decisions: spec.Decision has no place for a log location).
	DecisionsAt []Loc `json:"decisions_at,omitempty"`
	// UnnamedOps counts decision lines that name no collective (2.22 INFO
	// lines without a [COLL] call line before them); they are in Log.Ops but
	// not in Decisions.
	UnnamedOps int           `json:"unnamed_ops,omitempty"`
	Evidence   spec.Evidence `json:"evidence"`
	Caps       []CapEvidence `json:"caps"`
	// Algo and Proto are NCCL_ALGO and NCCL_PROTO as this release reads
	// them, when set.
	Algo     *AlgoRequest  `json:"-"`
	AlgoErr  string        `json:"algo_error,omitempty"`
	Proto    *ProtoRequest `json:"-"`
	ProtoErr string        `json:"proto_error,omitempty"`
}

// Cap returns the evidence of one capability.
func (o *Observation) Cap(c spec.Capability) *CapEvidence {
	for i := range o.Caps {
		if o.Caps[i].Cap == c {
			return &o.Caps[i]
		}
	}
	return nil
}

// Observe turns a log into an observation.
func Observe(l *Log) *Observation { return ObserveWith(l, nil) }

// ObserveWith is Observe with variables the caller knows were set but NCCL
// did not print (string parameters it reads silently, or a log without the
// ENV subsystem). Values NCCL printed win.
func ObserveWith(l *Log, extra spec.Env) *Observation {
	o := &Observation{Release: l.Release, Env: spec.Env{}, Evidence: spec.Evidence{}}
	for k, v := range extra {
		o.Env[k] = v
	}
	for _, e := range l.Env {
		if e.How != "invalid" {
			o.Env[e.Name] = e.Value
		}
	}
	if v, ok := o.Env.Lookup("NCCL_ALGO"); ok {
		r, err := ReadAlgoEnv(v, l.Release)
		o.Algo = &r
		if err != nil && l.Release != 0 {
			o.AlgoErr = err.Error()
		}
	}
	if v, ok := o.Env.Lookup("NCCL_PROTO"); ok {
		r, err := ReadProtoEnv(v, l.Release)
		o.Proto = &r
		if err != nil && l.Release != 0 {
			o.ProtoErr = err.Error()
		}
	}
	ob := observer{l: l, o: o}
	o.Caps = []CapEvidence{
		ob.netPlugin(), ob.ib(), ob.gdr(), ob.collnet(), ob.nvls(), ob.nvlsTree(), ob.pat(),
		ob.transport(spec.CapP2P, "P2P", "G-TRANSPORT-1", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"),
		ob.transport(spec.CapSHM, "SHM", "G-TRANSPORT-1", "NCCL_SHM_DISABLE", ""),
		ob.tuner(),
	}
	for i := range o.Caps {
		c := &o.Caps[i]
		sort.SliceStable(c.Proofs, func(a, b int) bool { return c.Proofs[a].Level < c.Proofs[b].Level })
		for _, p := range c.Proofs {
			if p.Level > c.Level {
				c.Level = p.Level
			}
		}
		o.Evidence[c.Cap] = c.Level
	}
	o.Decisions, o.DecisionsAt, o.UnnamedOps = ob.decisions()
	o.Trace = ob.trace()
	return o
}

type observer struct {
	l *Log
	o *Observation
}

// proof builds a Proof from the first sample of a kind.
func (ob *observer) proof(k Kind, lvl spec.Level, rule spec.RuleID, why string) (Proof, bool) {
	s, ok := ob.l.First(k)
	if !ok {
		return Proof{}, false
	}
	return Proof{Level: lvl, Rule: rule, At: s.At, Msg: s.Msg, Why: why, Count: ob.l.Count(k)}, true
}

// sampleWhere returns the first sample of a kind whose message satisfies f.
func (ob *observer) sampleWhere(k Kind, f func(string) bool) (Sample, bool) {
	for _, s := range ob.l.SamplesOf(k) {
		if f(s.Msg) {
			return s, true
		}
	}
	return Sample{}, false
}

func (ob *observer) envProof(name string, lvl spec.Level, rule spec.RuleID, why string) (Proof, bool) {
	if e, ok := ob.l.EnvValue(name); ok {
		return Proof{Level: lvl, Rule: rule, At: e.At, Msg: e.Name + " set by environment to " + e.Value, Why: why}, true
	}
	if v, ok := ob.o.Env.Lookup(name); ok {
		return Proof{Level: lvl, Rule: rule, Msg: name + "=" + v + " (given, not in the log)", Why: why}, true
	}
	return Proof{}, false
}

func (ob *observer) env(name string) (string, bool) { return ob.o.Env.Lookup(name) }

// envInt reads an integer parameter the way ncclLoadParam does (strtoll
// base 0); ok is false when unset or not a number.
// runtimeConnectSince is the first release that connects algorithms at
// their first use (ncclParamRuntimeConnect, default 1).
var runtimeConnectSince = spec.MakeVersion(2, 22, 3)

// runtimeConnect reports a log whose release connects NVLS, CollNet and
// the trees lazily: 2.22+ with neither NCCL_RUNTIME_CONNECT=0 nor
// NCCL_CUMEM_ENABLE=0 (runtime connect needs cuMem).
func (ob *observer) runtimeConnect() bool {
	if ob.l.Release == 0 || ob.l.Release < runtimeConnectSince {
		return false
	}
	for _, name := range []string{"NCCL_RUNTIME_CONNECT", "NCCL_CUMEM_ENABLE"} {
		if n, ok := ob.envInt(name); ok && n == 0 {
			return false
		}
	}
	return true
}

func (ob *observer) envInt(name string) (int64, bool) {
	v, ok := ob.env(name)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func isInternalNet(name string) bool { return name == "IB" || name == "Socket" }

// isIBNet reports a network that drives IB/RoCE verbs: the internal IB
// transport or the SHARP plugin's IB transport (IBext, IBext_v8, ...).
func (ob *observer) isIBNet(name string) bool {
	if name == "IB" || strings.HasPrefix(name, "IBext") {
		return true
	}
	return ob.l.Plugin.P2PPlugin != "" && name == ob.l.Plugin.P2PPlugin
}

// externalNets lists the non-internal network names the log uses.
func (ob *observer) externalNets() []NameCount {
	var out []NameCount
	for _, n := range ob.l.Networks {
		if !isInternalNet(n.Name) {
			out = append(out, n)
		}
	}
	return out
}

func (ob *observer) netPlugin() CapEvidence {
	c := CapEvidence{Cap: spec.CapNetPlugin}
	l := ob.l
	if v, ok := ob.env("NCCL_NET_PLUGIN"); ok {
		if strings.EqualFold(v, "none") {
			p, _ := ob.envProof("NCCL_NET_PLUGIN", spec.LevelRequested, "G-NET-LIB-1", "NCCL_NET_PLUGIN=none: no external net plugin is searched")
			c.Off = &p
		} else if p, ok := ob.envProof("NCCL_NET_PLUGIN", spec.LevelRequested, "G-NET-LIB-1", "the user names a net plugin library"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if p, ok := ob.proof(KindPluginNameEnv, spec.LevelDiscovered, "G-NET-LIB-1", "the library NCCL_NET_PLUGIN names was opened"); ok {
		c.Proofs = append(c.Proofs, p)
	}
	disc := []struct {
		k   Kind
		why string
	}{
		{KindPluginPath, "the plugin reports the library it was loaded from"},
		{KindPluginSymbolMissing, "NCCL opened the library and probed its symbols"},
		{KindPluginNoSymbol, "NCCL opened the library and probed its symbols"},
		{KindPluginUnsupported, "NCCL opened the library"},
		{KindPluginLoadError, "the library exists but dlopen failed"},
		{KindPluginOpenError, "the library exists but dlopen failed"},
	}
	for _, d := range disc {
		if d.k == KindPluginLoadError && len(l.Plugin.LoadErrors) == 0 {
			continue
		}
		if p, ok := ob.proof(d.k, spec.LevelDiscovered, "G-NET-LIB-1", d.why); ok {
			c.Proofs = append(c.Proofs, p)
			break
		}
	}
	acc := []struct {
		k   Kind
		why string
	}{
		{KindPluginLoaded, "a ncclNetPlugin_vN symbol was accepted"},
		{KindPluginSuccess, "NCCL accepted the external plugin"},
		{KindP2PPlugin, "the plugin's init ran (NCCL accepted its ABI)"},
		{KindOFIProvider, "the plugin's init ran (NCCL accepted its ABI)"},
		{KindOFI, "the plugin's init ran (NCCL accepted its ABI)"},
	}
	for _, a := range acc {
		if p, ok := ob.proof(a.k, spec.LevelAccepted, "G-NET-ABI-1", a.why); ok {
			c.Proofs = append(c.Proofs, p)
			break
		}
	}
	ext := ob.externalNets()
	for _, n := range l.Initialized {
		if !isInternalNet(n.Name) {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-NET-STATE-1", At: n.At, Msg: "Initialized NET plugin " + n.Name,
				Why: "the external network initialised with devices > 0", Count: n.Count})
			break
		}
	}
	if l.Plugin.OFIProvider != "" && l.Plugin.OFINICs > 0 {
		if p, ok := ob.proof(KindOFIProvider, spec.LevelUsable, "G-NET-STATE-1", fmt.Sprintf("the plugin found %d NICs through provider %s", l.Plugin.OFINICs, l.Plugin.OFIProvider)); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if l.Plugin.P2PPlugin != "" && len(l.IB.Devices) > 0 {
		if p, ok := ob.proof(KindIBUsing, spec.LevelUsable, "G-NET-STATE-1", "the plugin's IB transport lists devices"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	for _, n := range ext {
		c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-NET-SEL-1", At: n.At, Msg: "Using network " + n.Name,
			Why: "the communicator uses the external network " + n.Name, Count: n.Count})
		break
	}
	for _, t := range l.Transports {
		if t.Class == "NET" && !isInternalNet(t.Net) {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: "G-NET-SEL-1", At: t.First.At, Msg: t.First.Msg,
				Why: "channels are connected through the external network " + t.Net, Count: t.Count})
			break
		}
	}
	// Blocks.
	if len(c.Proofs) == 0 || maxLevel(c.Proofs) < spec.LevelDiscovered {
		if p, ok := ob.proof(KindPluginNotFound, spec.LevelDiscovered, "G-NET-LIB-2", "no external net plugin library was found: "+strings.Join(l.Plugin.NotFound, ", ")); ok {
			c.Blocks = append(c.Blocks, p)
		}
	}
	if maxLevel(c.Proofs) < spec.LevelAccepted {
		for _, k := range []Kind{KindPluginNoSymbol, KindPluginUnsupported} {
			if p, ok := ob.proof(k, spec.LevelAccepted, "G-NET-ABI-1", "the library exports no ncclNetPlugin symbol this release accepts"); ok {
				c.Blocks = append(c.Blocks, p)
			}
		}
		if len(l.Plugin.LoadErrors) > 0 {
			for _, k := range []Kind{KindPluginLoadError, KindPluginOpenError} {
				if p, ok := ob.proof(k, spec.LevelAccepted, "G-NET-LIB-1", "dlopen failed: "+l.Plugin.LoadErrors[0]); ok {
					c.Blocks = append(c.Blocks, p)
					break
				}
			}
		}
	}
	for _, n := range l.InitFailed {
		if !isInternalNet(n.Name) {
			c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: "G-NET-STATE-1", At: n.At, Msg: "Failed to initialize NET plugin " + n.Name,
				Why: "the external network's init failed or it reported no device", Count: n.Count})
		}
	}
	if l.Plugin.P2PPlugin != "" && len(l.IB.Devices) == 0 {
		if p, ok := ob.proof(KindIBNoDevice, spec.LevelUsable, "G-NET-STATE-1", "the plugin's IB transport found no device"); ok {
			c.Blocks = append(c.Blocks, p)
		}
	}
	c.Next = nextNetPlugin(maxLevel(c.Proofs), l)
	return c
}

func maxLevel(ps []Proof) spec.Level {
	m := spec.LevelNone
	for _, p := range ps {
		if p.Level > m {
			m = p.Level
		}
	}
	return m
}

func nextNetPlugin(lvl spec.Level, l *Log) string {
	switch {
	case lvl < spec.LevelDiscovered:
		if l.Count(KindPluginNotFound) == 0 && l.Count(KindUsingNetwork) == 0 {
			return "no plugin discovery line: run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET"
		}
		return "a library NCCL can dlopen (libnccl-net.so on the loader path, or NCCL_NET_PLUGIN)"
	case lvl < spec.LevelAccepted:
		return "a ncclNetPlugin_vN symbol this release accepts (a plugin built for this NCCL ABI)"
	case lvl < spec.LevelUsable:
		return "the plugin's init succeeding with at least one device"
	case lvl < spec.LevelCandidate:
		return "the communicator choosing this network (\"Using network\" naming it; check NCCL_NET)"
	case lvl < spec.LevelExecuted:
		return "a channel connection line \"via NET/<plugin>/...\" (NCCL_DEBUG_SUBSYS=INIT; only multi-node communicators use the network)"
	}
	return ""
}

func (ob *observer) ib() CapEvidence {
	c := CapEvidence{Cap: spec.CapIB}
	l := ob.l
	if n, ok := ob.envInt("NCCL_IB_DISABLE"); ok && n != 0 {
		p, _ := ob.envProof("NCCL_IB_DISABLE", spec.LevelRequested, "G-NET-IB-1", "NCCL_IB_DISABLE switches NCCL's internal IB transport off (not a plugin's)")
		c.Off = &p
	} else if ok {
		if p, ok := ob.envProof("NCCL_IB_DISABLE", spec.LevelRequested, "G-NET-IB-1", "IB explicitly left enabled"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if p, ok := ob.envProof("NCCL_IB_HCA", spec.LevelRequested, "G-NET-IB-1", "the user selects HCAs"); ok {
		c.Proofs = append(c.Proofs, p)
	}
	if v, ok := ob.env("NCCL_NET"); ok && ob.isIBNet(v) {
		if p, ok := ob.envProof("NCCL_NET", spec.LevelRequested, "G-NET-SEL-1", "NCCL_NET asks for an IB network"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if p, ok := ob.proof(KindIBNoDevice, spec.LevelAccepted, "G-NET-IB-1", "libibverbs loaded and was queried (no port passed the filters)"); ok && len(l.IB.Devices) == 0 {
		c.Proofs = append(c.Proofs, p)
	}
	if len(l.IB.Devices) > 0 {
		why := fmt.Sprintf("%d IB/RoCE port(s) active: %s", len(l.IB.Devices), strings.Join(firstN(l.IB.Devices, 8), " "))
		if p, ok := ob.proof(KindIBUsing, spec.LevelUsable, "G-NET-IB-1", why); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	for _, n := range l.Networks {
		if ob.isIBNet(n.Name) {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-NET-SEL-1", At: n.At, Msg: "Using network " + n.Name,
				Why: "the communicator uses an IB network (" + n.Name + ")", Count: n.Count})
			break
		}
	}
	for _, t := range l.Transports {
		if (t.Class == "NET" && ob.isIBNet(t.Net)) || t.Class == "COLLNET" {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: "G-NET-SEL-1", At: t.First.At, Msg: t.First.Msg,
				Why: "channels are connected over IB verbs (" + t.Detail + ")", Count: t.Count})
			break
		}
	}
	if p, ok := ob.proof(KindIBDataError, spec.LevelExecuted, "G-EXEC-ERR-1", "an IB work completion came back: data moved over IB verbs (with an error)"); ok {
		c.Proofs = append(c.Proofs, p)
	}
	lvl := maxLevel(c.Proofs)
	if lvl < spec.LevelDiscovered {
		if p, ok := ob.proof(KindVerbsMissing, spec.LevelDiscovered, "G-NET-IB-1", "libibverbs could not be loaded"); ok {
			c.Blocks = append(c.Blocks, p)
		}
	}
	if lvl < spec.LevelUsable {
		for _, k := range []Kind{KindIBNoDevice, KindIBNoIP} {
			why := "no active IB/RoCE port passed NCCL_IB_HCA"
			if k == KindIBNoIP {
				why = "no IP interface for IB's out-of-band connection"
			}
			if p, ok := ob.proof(k, spec.LevelUsable, "G-NET-IB-1", why); ok {
				c.Blocks = append(c.Blocks, p)
			}
		}
		for _, n := range l.InitFailed {
			if n.Name == "IB" {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: "G-NET-STATE-1", At: n.At, Msg: "Failed to initialize NET plugin IB",
					Why: "the internal IB network failed to initialise or found no device", Count: n.Count})
			}
		}
	}
	if lvl >= spec.LevelUsable && lvl < spec.LevelCandidate {
		if n := ob.l.Network(); n != "" && !ob.isIBNet(n) {
			for _, x := range l.Networks {
				if x.Name == n {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NET-SEL-1", At: x.At, Msg: "Using network " + n,
						Why: "the communicator chose " + n + " before IB (external plugins come first; NCCL_NET filters)", Count: x.Count})
				}
			}
		}
	}
	ibLines := l.Count(KindIBUsing) + l.Count(KindIBNoDevice) + l.Count(KindIBNoIP) + l.Count(KindVerbsMissing) + len(l.Networks)
	switch {
	case lvl < spec.LevelUsable && c.Off == nil && ibLines == 0:
		c.Next = "no NET/IB or network line in the log (NCCL_DEBUG_SUBSYS=INIT,NET shows IB discovery)"
	case lvl < spec.LevelUsable && c.Off == nil:
		c.Next = "an active IB/RoCE port NCCL can use: libibverbs, /dev/infiniband, the HCA visible in the container, NCCL_IB_HCA"
	case lvl < spec.LevelCandidate:
		c.Next = "the communicator choosing an IB network (\"Using network IB\")"
	case lvl < spec.LevelExecuted:
		c.Next = "a channel connection \"via NET/IB/...\" (only ranks on different nodes use the network; NCCL_DEBUG_SUBSYS=INIT)"
	}
	return c
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), "…")
}

func (ob *observer) gdr() CapEvidence {
	c := CapEvidence{Cap: spec.CapGDR}
	l := ob.l
	if v, ok := ob.env("NCCL_NET_GDR_LEVEL"); ok {
		if strings.EqualFold(v, "LOC") || v == "0" {
			p, _ := ob.envProof("NCCL_NET_GDR_LEVEL", spec.LevelRequested, "G-NET-GDR-2", "NCCL_NET_GDR_LEVEL="+v+" disables GPUDirect RDMA")
			c.Off = &p
		} else if p, ok := ob.envProof("NCCL_NET_GDR_LEVEL", spec.LevelRequested, "G-NET-GDR-2", "the user sets how far GPUDirect RDMA may reach"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if len(l.GDR.HCAEnabled) > 0 {
		if s, ok := ob.sampleWhere(KindGDRHCA, func(m string) bool { return strings.Contains(m, "Enabled") }); ok {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-NET-GDR-1", At: s.At, Msg: s.Msg, Why: "the NIC supports GPUDirect RDMA"})
		}
	}
	if l.GDR.GPUEnabled > 0 {
		if s, ok := ob.sampleWhere(KindGDRGPU, func(m string) bool { return strings.Contains(m, "Enabled") }); ok {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-NET-GDR-2", At: s.At, Msg: s.Msg, Why: "the GPU-NIC path allows GPUDirect RDMA", Count: l.GDR.GPUEnabled})
		}
	}
	for _, t := range l.Transports {
		if t.GDR {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: "G-NET-GDR-2", At: t.First.At, Msg: t.First.Msg,
				Why: "a network connector moves data GPU-to-NIC directly (" + t.Detail + ")", Count: t.Count})
			break
		}
	}
	lvl := maxLevel(c.Proofs)
	if lvl < spec.LevelUsable && len(l.GDR.HCADisabled) > 0 {
		if s, ok := ob.sampleWhere(KindGDRHCA, func(m string) bool { return strings.Contains(m, "Disabled") }); ok {
			c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: "G-NET-GDR-1", At: s.At, Msg: s.Msg,
				Why: "NCCL found no GPUDirect RDMA support for the NIC (nvidia-peermem / nv_peer_mem not loaded, or no DMA-BUF)"})
		}
	}
	if lvl < spec.LevelCandidate && l.GDR.GPUDisabled > 0 && l.GDR.GPUEnabled == 0 {
		if s, ok := ob.sampleWhere(KindGDRGPU, func(m string) bool { return strings.Contains(m, "Disabled") }); ok {
			c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NET-GDR-2", At: s.At, Msg: s.Msg,
				Why: "the GPU is too far from the NIC for NCCL_NET_GDR_LEVEL", Count: l.GDR.GPUDisabled})
		}
	}
	if lvl < spec.LevelExecuted {
		hasNet := false
		for _, t := range l.Transports {
			if t.Class == "NET" || t.Class == "COLLNET" {
				hasNet = true
				if !t.GDR && lvl >= spec.LevelUsable {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelExecuted, Rule: "G-NET-GDR-2", At: t.First.At, Msg: t.First.Msg,
						Why: "this network connector does not use GPUDirect RDMA (no /GDRDMA)", Count: t.Count})
					break
				}
			}
		}
		if !hasNet {
			c.Next = "a network connector \"via NET/.../GDRDMA\" (only inter-node channels use the NIC; NCCL_DEBUG_SUBSYS=INIT,NET)"
		} else {
			c.Next = "a network connector with /GDRDMA"
		}
		if lvl < spec.LevelUsable && len(l.GDR.HCADisabled) == 0 && len(l.GDR.HCAEnabled) == 0 {
			c.Next = "the NIC's GPUDirect RDMA verdict (\"GPU Direct RDMA Enabled/Disabled for HCA\", NCCL_DEBUG_SUBSYS=NET)"
		}
	}
	return c
}

// algoNamed reports whether NCCL_ALGO names one of the algorithms.
func (ob *observer) algoNamed(as ...spec.Algo) bool {
	if ob.o.Algo == nil {
		return false
	}
	for _, a := range as {
		if ob.o.Algo.Named[a] {
			return true
		}
	}
	return false
}

func (ob *observer) algoEnvProof(why string) (Proof, bool) {
	return ob.envProof("NCCL_ALGO", spec.LevelRequested, ob.o.Algo.Rule, why)
}

// selectedProof returns the first decision line choosing one of algos.
func (ob *observer) selectedProof(as ...spec.Algo) (Proof, bool) {
	n := 0
	var first *OpChoice
	for i := range ob.l.Ops {
		op := &ob.l.Ops[i]
		for _, a := range as {
			if op.Algo == a {
				n += op.Count
				if first == nil {
					first = op
				}
			}
		}
	}
	if first == nil {
		return Proof{}, false
	}
	return Proof{Level: spec.LevelSelected, Rule: "G-SEL-PICK-1", At: first.First.At, Msg: first.First.Msg,
		Why: fmt.Sprintf("%d operation line(s) chose %s", n, first.Algo), Count: n}, true
}

func (ob *observer) tableHas(as []spec.Algo, funcs []spec.Func) (bw bool, present bool, at Loc) {
	for _, t := range ob.l.Tables {
		for _, a := range as {
			for _, f := range funcs {
				for _, p := range spec.Protos {
					if c, ok := t.Cell(f, a, p); ok {
						present, at = true, t.At
						if c.Bw > 0 {
							return true, true, t.At
						}
					}
				}
			}
		}
	}
	return false, present, at
}

func (ob *observer) collnet() CapEvidence {
	c := CapEvidence{Cap: spec.CapCollNet}
	l := ob.l
	if v, ok := ob.env("NCCL_COLLNET_ENABLE"); ok {
		on := v == "1"
		if ob.o.Release == 0 || ob.o.Release >= spec.MakeVersion(2, 27, 3) {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
			on = err == nil && n == 1
		}
		if on {
			p, _ := ob.envProof("NCCL_COLLNET_ENABLE", spec.LevelRequested, "G-COLLNET-ENV-1", "CollNet enabled by the user")
			c.Proofs = append(c.Proofs, p)
		} else {
			p, _ := ob.envProof("NCCL_COLLNET_ENABLE", spec.LevelRequested, "G-COLLNET-ENV-1", "NCCL_COLLNET_ENABLE="+v+" leaves CollNet disabled")
			c.Off = &p
		}
	}
	if ob.algoNamed(spec.CollNetDirect, spec.CollNetChain) {
		if p, ok := ob.algoEnvProof("NCCL_ALGO names a CollNet algorithm"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if p, ok := ob.proof(KindCollNetSymbolMissing, spec.LevelDiscovered, "G-COLLNET-ABI-1", "NCCL probed the plugin library for CollNet symbols"); ok {
		c.Proofs = append(c.Proofs, p)
	}
	if p, ok := ob.proof(KindCollNetLoaded, spec.LevelAccepted, "G-COLLNET-ABI-1", "a ncclCollNetPlugin_vN symbol was accepted"); ok {
		c.Proofs = append(c.Proofs, p)
	}
	for _, n := range l.NetDevices {
		if strings.HasPrefix(n.Name, "CollNet ") && !strings.HasSuffix(n.Name, " 0") {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-COLLNET-PLUGIN-1", At: n.At, Msg: "Rank: " + n.Name + " devices", Why: "the CollNet plugin reports devices"})
			break
		}
	}
	if l.IB.SHARPDevices > 0 {
		if p, ok := ob.proof(KindIBUsing, spec.LevelUsable, "G-COLLNET-PLUGIN-1",
			fmt.Sprintf("the SHARP plugin marks %d port(s) /SHARP (SHARP-capable HCAs)", l.IB.SHARPDevices)); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	for _, g := range l.Graphs {
		if g.Pattern == 6 && g.NChannels > 0 {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-COLLNET-GRAPH-1", At: g.At,
				Msg: fmt.Sprintf("Pattern 6, crossNic %d, nChannels %d, ...", g.CrossNic, g.NChannels), Why: "the CollNetDirect graph found channels", Count: g.Count})
			break
		}
	}
	for _, k := range []Kind{KindCollNetConn, KindCollNetConnected, KindCollNetChains} {
		if p, ok := ob.proof(k, spec.LevelCandidate, "G-COLLNET-SETUP-1", "CollNet connectors were set up for the communicator"); ok {
			c.Proofs = append(c.Proofs, p)
			break
		}
	}
	if bw, _, at := ob.tableHas([]spec.Algo{spec.CollNetDirect, spec.CollNetChain}, []spec.Func{spec.AllReduce}); bw {
		c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-TUNE-EN-1", At: at, Msg: "tuning table: CollNet AllReduce bandwidth > 0",
			Why: "CollNet is enabled in the communicator's model"})
	}
	sel, hasSel := ob.selectedProof(spec.CollNetDirect, spec.CollNetChain)
	if hasSel {
		c.Proofs = append(c.Proofs, sel)
		if p, ok := ob.proof(KindCollNetConn, spec.LevelExecuted, "G-EXEC-RTCONN-1", "operations chose CollNet and CollNet connectors exist"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	lvl := maxLevel(c.Proofs)
	// Blocks.
	if lvl < spec.LevelAccepted {
		if p, ok := ob.proof(KindCollNetNoSymbol, spec.LevelAccepted, "G-COLLNET-ABI-1", "the net plugin has no CollNet symbols this release accepts"); ok {
			c.Blocks = append(c.Blocks, p)
		}
	}
	pluginSeen := l.Plugin.Name != "" || l.Plugin.Path != "" || l.Plugin.Success || len(ob.externalNets()) > 0
	if lvl >= spec.LevelRequested && lvl < spec.LevelDiscovered && !pluginSeen && c.Off == nil {
		if p, ok := ob.proof(KindPluginNotFound, spec.LevelDiscovered, "G-COLLNET-PLUGIN-1", "CollNet needs an external net plugin (the SHARP plugin); none was found"); ok {
			c.Blocks = append(c.Blocks, p)
		}
	}
	if n := l.Network(); n != "" && isInternalNet(n) && lvl < spec.LevelCandidate {
		for _, x := range l.Networks {
			if x.Name == n {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NET-SEL-2", At: x.At, Msg: "Using network " + n,
					Why: "CollNet attaches only to an external plugin's network; the communicator uses the internal " + n, Count: x.Count})
			}
		}
	}
	blocks := []struct {
		k    Kind
		rule spec.RuleID
		why  string
	}{
		{KindCollNetThreshold, "G-COLLNET-THRESH-1", "fewer nodes than NCCL_COLLNET_NODE_THRESHOLD (default 2): CollNet is never used on one node"},
		{KindCollNetArity, "G-COLLNET-ARITY-1", "more than 8 GPUs per node"},
		{KindCollNetInitFail, "G-COLLNET-SETUP-1", "CollNet transport setup failed on a node; NCCL fell back to the point-to-point network"},
		{KindCollNetChild, "G-COLLNET-SETUP-1", "a child communicator could not share its parent's SHARP resources"},
		{KindCollNetAlgoIgnored, "G-TUNE-EN-1", "NCCL_ALGO asked for CollNet on a communicator without CollNet support"},
	}
	for _, b := range blocks {
		if p, ok := ob.proof(b.k, spec.LevelCandidate, b.rule, b.why); ok {
			c.Blocks = append(c.Blocks, p)
		}
	}
	for _, g := range l.Graphs {
		if g.Pattern == 6 && g.NChannels == 0 {
			c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-COLLNET-GRAPH-1", At: g.At,
				Msg: "Pattern 6, crossNic " + strconv.Itoa(g.CrossNic) + ", nChannels 0, ...", Why: "the CollNetDirect graph found no channel (no CollNet NIC reachable)"})
			break
		}
	}
	switch {
	case lvl == spec.LevelNone && c.Off == nil:
		c.Next = "NCCL_COLLNET_ENABLE=1 and the SHARP net plugin (libnccl-net.so from nccl-rdma-sharp-plugins/HPC-X)"
	case lvl < spec.LevelAccepted:
		c.Next = "the net plugin's CollNet symbols accepted (\"Loaded collnet plugin SHARP (vN)\")"
	case lvl < spec.LevelCandidate:
		c.Next = "communicator support: at least NCCL_COLLNET_NODE_THRESHOLD nodes, CollNet setup succeeding on every node (\"CollNet 00/0 : ... via COLLNET/...\")"
	case lvl < spec.LevelSelected:
		c.Next = "an operation choosing CollNetDirect/CollNetChain (per-operation lines need NCCL_DEBUG_SUBSYS=TUNING; AllReduce with a supported redop/datatype)"
	case lvl < spec.LevelExecuted:
		c.Next = "CollNet connector lines together with the selecting operations"
	}
	return c
}

func (ob *observer) nvls() CapEvidence {
	c := CapEvidence{Cap: spec.CapNVLS}
	l := ob.l
	if n, ok := ob.envInt("NCCL_NVLS_ENABLE"); ok {
		switch n {
		case 0:
			p, _ := ob.envProof("NCCL_NVLS_ENABLE", spec.LevelRequested, "G-NVLS-ENV-1", "NCCL_NVLS_ENABLE=0 switches NVLS off")
			c.Off = &p
		case 2:
		default:
			p, _ := ob.envProof("NCCL_NVLS_ENABLE", spec.LevelRequested, "G-NVLS-ENV-1", "NVLS forced on (the multicast attribute is not checked)")
			c.Proofs = append(c.Proofs, p)
		}
	}
	if ob.algoNamed(spec.NVLS) {
		if p, ok := ob.algoEnvProof("NCCL_ALGO names NVLS"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if l.NVLS.AvailableDevs > 0 {
		if s, ok := ob.sampleWhere(KindNVLSSupport, func(m string) bool { return !strings.Contains(m, "not available") }); ok {
			why := fmt.Sprintf("the driver reports multicast support (%d device(s))", l.NVLS.AvailableDevs)
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-NVLS-CAP-1", At: s.At, Msg: s.Msg, Why: why, Count: l.NVLS.AvailableDevs})
		}
	}
	nvlsChans := -1
	for _, cs := range l.Channels {
		if cs.HasNVLS {
			if cs.NVLS > 0 {
				c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-CONS-1", At: cs.At,
					Msg: fmt.Sprintf("%d coll channels, ... %d nvls channels, ...", cs.Coll, cs.NVLS), Why: "all ranks agreed on NVLS channels", Count: cs.Count})
				nvlsChans = max(nvlsChans, cs.NVLS)
				break
			}
			nvlsChans = max(nvlsChans, 0)
		}
	}
	for _, g := range l.Graphs {
		if g.Pattern == 5 && g.NChannels > 0 {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-GRAPH-1", At: g.At,
				Msg: fmt.Sprintf("Pattern 5, crossNic %d, nChannels %d, ...", g.CrossNic, g.NChannels), Why: "the NVLS graph found channels", Count: g.Count})
			break
		}
	}
	if p, ok := ob.proof(KindNVLSTuning, spec.LevelCandidate, "G-NVLS-CHAN-1", "NVLS channels tuned after consensus"); ok && !strings.HasPrefix(p.Msg, "NVLS tuning: nChannels 0 ") {
		c.Proofs = append(c.Proofs, p)
	}
	if bw, _, at := ob.tableHas([]spec.Algo{spec.NVLS}, []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter}); bw {
		c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-TUNE-EN-1", At: at, Msg: "tuning table: NVLS bandwidth > 0", Why: "NVLS is enabled in the communicator's model"})
	}
	if p, ok := ob.proof(KindNVLSComm, spec.LevelCandidate, "G-NVLS-SETUP-1", "NVLS buffers were set up"); ok {
		c.Proofs = append(c.Proofs, p)
	}
	// With runtime connect NCCL sets NVLS up only for an operation that
	// chose NVLS or NVLSTree, so the setup lines prove a selection even
	// when no per-operation line was printed.
	if ob.runtimeConnect() {
		for _, k := range []Kind{KindNVLSComm, KindNVLSTreeConnected} {
			if p, ok := ob.proof(k, spec.LevelSelected, "G-EXEC-RTCONN-1", "runtime connect (2.22+, NCCL_RUNTIME_CONNECT=1 with cuMem) sets NVLS up only when an operation chooses NVLS or NVLSTree"); ok {
				c.Proofs = append(c.Proofs, p)
				break
			}
		}
	}
	sel, hasSel := ob.selectedProof(spec.NVLS)
	if hasSel {
		c.Proofs = append(c.Proofs, sel)
		for _, k := range []Kind{KindNVLSComm, KindNVLSGroup} {
			if p, ok := ob.proof(k, spec.LevelExecuted, "G-EXEC-RTCONN-1", "operations chose NVLS and its multicast buffers exist"); ok {
				c.Proofs = append(c.Proofs, p)
				break
			}
		}
	}
	lvl := maxLevel(c.Proofs)
	if lvl < spec.LevelUsable && l.NVLS.UnavailableDevs > 0 {
		if s, ok := ob.sampleWhere(KindNVLSSupport, func(m string) bool { return strings.Contains(m, "not available") }); ok {
			c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: "G-NVLS-CAP-1", At: s.At, Msg: s.Msg,
				Why: "CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED is 0 (no NVSwitch multicast, driver/Fabric Manager, or a CUDA < 12.1 build)", Count: l.NVLS.UnavailableDevs})
		}
	}
	if nvlsChans == 0 && lvl < spec.LevelCandidate {
		for _, cs := range l.Channels {
			if cs.HasNVLS && cs.NVLS == 0 {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-CONS-1", At: cs.At,
					Msg: fmt.Sprintf("%d coll channels, ... 0 nvls channels, ...", cs.Coll), Why: "NVLS has 0 channels: no NVSwitch in the topology, sm < 90, fewer than 2 GPUs, or one rank without support", Count: cs.Count})
				break
			}
		}
	}
	for _, g := range l.Graphs {
		if g.Pattern == 5 && g.NChannels == 0 {
			c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-GRAPH-1", At: g.At, Msg: "Pattern 5, ... nChannels 0, ...",
				Why: "the NVLS graph search found no channel (no NVSwitch node or sm < 90)", Count: g.Count})
			break
		}
	}
	for _, b := range []struct {
		k   Kind
		why string
	}{
		{KindNVLSBindSoft, "binding multicast memory failed; NCCL continued without NVLS (2.27-2.28 soft failure)"},
		{KindNVLSBindFail, "binding multicast memory failed (Fabric Manager / NVSwitch state); communicator init fails"},
		{KindNVLSNoNIC, "no NIC for a rank in the NVLS graph"},
	} {
		if p, ok := ob.proof(b.k, spec.LevelCandidate, "G-NVLS-SETUP-1", b.why); ok {
			c.Blocks = append(c.Blocks, p)
		}
	}
	if l.NVLS.CudaFailures > 0 {
		for _, e := range l.Errors {
			if e.Kind == "cuda.failure" && strings.Contains(e.SrcFile, "nvls") {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-SETUP-1", At: e.First.At, Msg: e.Msg,
					Why: "a CUDA multicast call failed in " + e.SrcFile + " (the multicast object could not be created or bound): init fails", Count: e.Count})
				break
			}
		}
	}
	switch {
	case lvl < spec.LevelUsable && c.Off == nil:
		if l.Count(KindNVLSSupport) == 0 {
			c.Next = "\"NVLS multicast support is available\" (needs sm90+ GPUs on an NVSwitch, a CUDA 12.1+ build and driver, NCCL 2.17+; absent with NCCL_NVLS_ENABLE=0 or <= 2 GPUs before 2.28.7)"
		} else {
			c.Next = "multicast support on the device (NVSwitch system with Fabric Manager running, driver exporting cuMulticastCreate)"
		}
	case lvl < spec.LevelCandidate:
		c.Next = "NVLS channels > 0 on every rank (\"N nvls channels\" with N > 0)"
	case lvl < spec.LevelSelected:
		c.Next = "an operation choosing NVLS (per-operation lines need NCCL_DEBUG_SUBSYS=TUNING; float/half/bf16 sums and int min/max are eligible)"
	case lvl < spec.LevelExecuted:
		c.Next = "NVLS buffer setup lines (\"NVLS comm ... headRank\", NCCL_DEBUG_SUBSYS=INIT,NVLS) with the selecting operations"
	}
	return c
}

func (ob *observer) nvlsTree() CapEvidence {
	c := CapEvidence{Cap: spec.CapNVLSTree}
	l := ob.l
	if ob.algoNamed(spec.NVLSTree) {
		if p, ok := ob.algoEnvProof("NCCL_ALGO names NVLSTree"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if l.NVLS.AvailableDevs > 0 {
		if s, ok := ob.sampleWhere(KindNVLSSupport, func(m string) bool { return !strings.Contains(m, "not available") }); ok {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-NVLS-CAP-1", At: s.At, Msg: s.Msg, Why: "NVLSTree needs NVLS support, which the device has"})
		}
	}
	for _, k := range []Kind{KindNVLSTreeConnected, KindNVLSTrees} {
		if p, ok := ob.proof(k, spec.LevelCandidate, "G-NVLSTREE-1", "NVLS trees were built (NVLS support and more than one node)"); ok {
			c.Proofs = append(c.Proofs, p)
			break
		}
	}
	if sel, ok := ob.selectedProof(spec.NVLSTree); ok {
		c.Proofs = append(c.Proofs, sel)
		if p, ok := ob.proof(KindNVLSTreeConnected, spec.LevelExecuted, "G-EXEC-RTCONN-1", "operations chose NVLSTree and NVLS trees are connected"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	lvl := maxLevel(c.Proofs)
	if lvl < spec.LevelCandidate && l.NNodes() == 1 {
		for _, cm := range l.Comms {
			if cm.NNodes == 1 {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLSTREE-1", At: cm.At,
					Msg: fmt.Sprintf("comm %s rank %d nRanks %d nNodes 1 ...", cm.Ptr, cm.Rank, cm.NRanks), Why: "NVLSTree is disabled on a single node"})
				break
			}
		}
	}
	switch {
	case lvl < spec.LevelUsable:
		c.Next = "NVLS support (see nvls)"
	case lvl < spec.LevelCandidate:
		c.Next = "more than one node with NVLS (\"Connected NVLS tree\")"
	case lvl < spec.LevelSelected:
		c.Next = "an AllReduce choosing NVLS_TREE (NCCL_DEBUG_SUBSYS=TUNING)"
	case lvl < spec.LevelExecuted:
		c.Next = "\"Connected NVLS tree\" together with the selecting operations"
	}
	return c
}

// patSince is the first release with PAT (v2.23.4-1 src/graph/tuning.cc ncclPatEnable).
var patSince = spec.MakeVersion(2, 23, 4)

func (ob *observer) pat() CapEvidence {
	c := CapEvidence{Cap: spec.CapPAT}
	l := ob.l
	if n, ok := ob.envInt("NCCL_PAT_ENABLE"); ok {
		if n == 0 {
			p, _ := ob.envProof("NCCL_PAT_ENABLE", spec.LevelRequested, "G-PAT-1", "NCCL_PAT_ENABLE=0 switches PAT off")
			c.Off = &p
		} else if n != 2 {
			p, _ := ob.envProof("NCCL_PAT_ENABLE", spec.LevelRequested, "G-PAT-1", "PAT forced on")
			c.Proofs = append(c.Proofs, p)
		}
	}
	if ob.algoNamed(spec.PAT) {
		if p, ok := ob.algoEnvProof("NCCL_ALGO names PAT"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	bw, present, at := ob.tableHas([]spec.Algo{spec.PAT}, []spec.Func{spec.AllGather, spec.ReduceScatter})
	if bw {
		c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-PAT-1", At: at, Msg: "tuning table: PAT AllGather/ReduceScatter bandwidth > 0", Why: "PAT is enabled in the model (one GPU per node, host network)"})
	}
	if sel, ok := ob.selectedProof(spec.PAT); ok {
		c.Proofs = append(c.Proofs, sel)
	}
	lvl := maxLevel(c.Proofs)
	if present && !bw && lvl < spec.LevelCandidate {
		c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-PAT-1", At: at, Msg: "tuning table: PAT bandwidth 0",
			Why: "PAT is off: it needs one GPU per node (nNodes == nRanks), a host network and sm60+ unless NCCL_PAT_ENABLE forces it"})
	}
	switch {
	case l.Release != 0 && l.Release < patSince:
		c.Next = "PAT does not exist before NCCL 2.23.4"
	case lvl < spec.LevelCandidate:
		c.Next = "PAT in the tuning table (NCCL_DEBUG_SUBSYS=TUNING; one GPU per node)"
	case lvl < spec.LevelSelected:
		c.Next = "an AllGather/ReduceScatter choosing PAT (NCCL_DEBUG_SUBSYS=TUNING)"
	case lvl < spec.LevelExecuted:
		c.Next = "nothing further can be shown: NCCL prints no PAT-specific connection line, selected is the highest level a log proves"
	}
	return c
}

func (ob *observer) transport(cp spec.Capability, class string, rule spec.RuleID, disable, level string) CapEvidence {
	c := CapEvidence{Cap: cp}
	if n, ok := ob.envInt(disable); ok {
		if n != 0 {
			p, _ := ob.envProof(disable, spec.LevelRequested, rule, disable+"=1 switches this transport off")
			c.Off = &p
		}
	}
	if level != "" {
		if v, ok := ob.env(level); ok {
			if strings.EqualFold(v, "LOC") {
				p, _ := ob.envProof(level, spec.LevelRequested, rule, level+"=LOC disables P2P")
				c.Off = &p
			} else if p, ok := ob.envProof(level, spec.LevelRequested, rule, "the user sets how far P2P may reach"); ok {
				c.Proofs = append(c.Proofs, p)
			}
		}
	}
	n := 0
	var first *TransportUse
	for i := range ob.l.Transports {
		t := &ob.l.Transports[i]
		if t.Class == class {
			n += t.Count
			if first == nil {
				first = t
			}
		}
	}
	if first != nil {
		c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: rule, At: first.First.At, Msg: first.First.Msg,
			Why: fmt.Sprintf("%d connector line(s) via %s (first %s)", n, class, first.Detail), Count: n})
	} else {
		c.Next = "a channel connection line \"via " + class + "/...\" (NCCL_DEBUG_SUBSYS=INIT; only peers on the same node)"
	}
	return c
}

func (ob *observer) tuner() CapEvidence {
	c := CapEvidence{Cap: spec.CapTuner}
	if v, ok := ob.env("NCCL_TUNER_PLUGIN"); ok {
		if strings.EqualFold(v, "none") {
			p, _ := ob.envProof("NCCL_TUNER_PLUGIN", spec.LevelRequested, "G-TUNER-LIB-1", "NCCL_TUNER_PLUGIN=none")
			c.Off = &p
		} else if p, ok := ob.envProof("NCCL_TUNER_PLUGIN", spec.LevelRequested, "G-TUNER-LIB-1", "the user names a tuner plugin"); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}
	if p, ok := ob.proof(KindTunerUsing, spec.LevelAccepted, "G-TUNER-ABI-1", "a tuner plugin was loaded and its symbol accepted"); ok {
		c.Proofs = append(c.Proofs, p)
	}
	if maxLevel(c.Proofs) < spec.LevelDiscovered {
		if s, ok := ob.sampleWhere(KindTunerNotFound, func(m string) bool { return strings.Contains(m, "Could not find") }); ok {
			c.Blocks = append(c.Blocks, Proof{Level: spec.LevelDiscovered, Rule: "G-TUNER-LIB-1", At: s.At, Msg: s.Msg, Why: "no tuner plugin library found: the internal model decides"})
		}
		c.Next = "a tuner plugin library (NCCL_TUNER_PLUGIN) — none is needed for NCCL's own model"
	}
	return c
}

// decisions turns per-operation lines into spec.Decisions.
func (ob *observer) decisions() ([]spec.Decision, []Loc, int) {
	l := ob.l
	var out []spec.Decision
	var at []Loc
	unnamed := 0
	net := l.Network()
	for _, op := range l.Ops {
		if !op.FuncKnown {
			unnamed++
			continue
		}
		dt := spec.Int8
		if op.DTypeKnow {
			dt = op.DType
		}
		o, err := spec.OpFromBytes(op.Func, op.Bytes, dt, op.RedOp, 0)
		if err != nil {
			o = spec.Op{Func: op.Func, Count: op.Bytes, DataType: spec.Int8, RedOp: op.RedOp}
		}
		d := spec.Decision{Release: l.Release, Op: o, Algo: op.Algo, Proto: op.Proto, DecidedBy: "G-SEL-PICK-1",
			Net: net, ChannelLo: op.ChannelLo, ChannelHi: op.ChannelHi, Evidence: ob.o.Evidence}
		if op.ChannelLo >= 0 && op.ChannelHi >= op.ChannelLo {
			d.NChannels = op.ChannelHi - op.ChannelLo + 1
		}
		if op.TimeUs >= 0 {
			d.TimeUs = op.TimeUs
		}
		d.CollNetSupport = ob.o.Evidence[spec.CapCollNet] >= spec.LevelCandidate
		d.NVLSSupport = ob.o.Evidence[spec.CapNVLS] >= spec.LevelCandidate
		// Before 2.24.3 an NCCL_ALGO the function cannot run falls back to
		// Ring without an error (G-SEL-BACKUP-1).
		if ob.o.Algo != nil && l.Release != 0 && l.Release < perFunctionGrammar && op.Func < spec.NumFuncs &&
			op.Algo >= 0 && !ob.o.Algo.Enabled[op.Func][op.Algo] {
			d.Fallback, d.DecidedBy = true, "G-SEL-BACKUP-1"
		}
		out = append(out, d)
		at = append(at, op.First.At)
	}
	for _, na := range l.NoAlgo {
		f, err := spec.ParseFunc(na.Func)
		if err != nil {
			continue
		}
		dt, err := spec.ParseDataType(na.DType)
		if err != nil {
			dt = spec.Int8
		}
		res := spec.InternalError
		if na.AlgoEnv != "" || na.ProtoEnv != "" {
			res = spec.InvalidUsage
		}
		rule := spec.RuleID("G-SEL-ERR-1")
		if l.Release != 0 && l.Release < perFunctionGrammar {
			rule = "G-SEL-BACKUP-1"
		}
		out = append(out, spec.Decision{Release: l.Release, Op: spec.Op{Func: f, DataType: dt}, Algo: spec.AlgoNone, Proto: spec.ProtoNone,
			Err: &spec.NCCLError{Result: res, Message: na.First.Msg, Call: "ncclGroupEnd"}, DecidedBy: rule, Net: net, Evidence: ob.o.Evidence})
		at = append(at, na.First.At)
	}
	return out, at, unnamed
}

// trace lays the proofs and blocks out as verdicts in rule order. A gate
// the log shows failing for a capability is one Fail verdict, even where a
// lower rung of the same gate passed (libibverbs loaded, no port found);
// a line proving the same rule for two capabilities (NVLS support for
// NVLS and NVLSTree) is one verdict.
func (ob *observer) trace() spec.Trace {
	type vk struct {
		rule spec.RuleID
		out  spec.Outcome
		cp   spec.Capability
	}
	type lk struct {
		rule spec.RuleID
		out  spec.Outcome
		at   Loc
	}
	seen := map[vk]bool{}
	seenLine := map[lk]bool{}
	failed := map[vk]bool{}
	for _, c := range ob.o.Caps {
		for _, p := range c.Blocks {
			failed[vk{p.Rule, spec.Fail, c.Cap}] = true
		}
		if c.Off != nil {
			failed[vk{c.Off.Rule, spec.Fail, c.Cap}] = true
		}
	}
	var t spec.Trace
	add := func(p Proof, cp spec.Capability, out spec.Outcome) {
		if p.Rule == "" {
			return
		}
		k := vk{p.Rule, out, cp}
		if seen[k] || (out == spec.Pass && failed[vk{p.Rule, spec.Fail, cp}]) {
			return
		}
		// A user naming a plugin library is a request, not the library
		// gate passing: spec's G-NET-LIB-1 passes only when a library
		// opens, and so does the log's.
		if out == spec.Pass && p.Rule == "G-NET-LIB-1" && p.Level == spec.LevelRequested {
			return
		}
		if p.At.File != "" {
			l := lk{p.Rule, out, p.At}
			if seenLine[l] {
				return
			}
			seenLine[l] = true
		}
		seen[k] = true
		r, _ := RuleByID(p.Rule)
		facts := []spec.Fact{}
		if p.At.File != "" {
			facts = append(facts, spec.F("at", p.At))
		}
		if p.Count > 1 {
			facts = append(facts, spec.F("count", p.Count))
		}
		v := spec.Verdict{Rule: p.Rule, Layer: r.Layer, Outcome: out, Cap: cp, Facts: facts, Why: p.Why, Ref: r.Ref}
		if out == spec.Pass {
			v.Level = p.Level
		}
		if p.Msg != "" {
			v.Log = []string{p.Msg}
		}
		t = append(t, v)
	}
	for _, e := range ob.l.Env {
		r, _ := RuleByID("G-ENV-PARAM-1")
		out := spec.Info
		if e.How == "invalid" {
			out = spec.Fail
		}
		t = append(t, spec.Verdict{Rule: "G-ENV-PARAM-1", Layer: r.Layer, Outcome: out, Facts: []spec.Fact{spec.F(e.Name, e.Value), spec.F("at", e.At)},
			Log: []string{e.Name + " set by environment to " + e.Value}, Ref: r.Ref, Why: "NCCL reported reading " + e.Name})
	}
	for _, c := range ob.o.Caps {
		for _, p := range c.Proofs {
			add(p, c.Cap, spec.Pass)
		}
		if c.Off != nil {
			add(*c.Off, c.Cap, spec.Fail)
		}
		for _, p := range c.Blocks {
			add(p, c.Cap, spec.Fail)
		}
	}
	if ob.o.AlgoErr != "" && ob.o.Algo != nil {
		r, _ := RuleByID(ob.o.Algo.Rule)
		t = append(t, spec.Verdict{Rule: ob.o.Algo.Rule, Layer: r.Layer, Outcome: spec.Fail, Why: ob.o.AlgoErr, Ref: r.Ref})
	}
	if s, ok := ob.l.First(KindAlgoParseError); ok {
		r, _ := RuleByID("G-SEL-PARSE-2")
		t = append(t, spec.Verdict{Rule: "G-SEL-PARSE-2", Layer: r.Layer, Outcome: spec.Fail, Facts: []spec.Fact{spec.F("at", s.At)},
			Log: []string{s.Msg}, Why: "NCCL rejected NCCL_ALGO/NCCL_PROTO: communicator init fails", Ref: r.Ref})
	}
	for i, d := range ob.o.Decisions {
		r, _ := RuleByID(d.DecidedBy)
		v := spec.Verdict{Rule: d.DecidedBy, Layer: r.Layer, Outcome: spec.Pass, Scope: "op", Ref: r.Ref,
			Facts: []spec.Fact{spec.F("coll", d.Op.Func), spec.F("bytes", d.Op.Bytes()), spec.F("at", ob.o.DecisionsAt[i])}}
		if d.Err != nil {
			v.Outcome = spec.Fail
			v.Why = d.Err.String()
			v.Log = []string{d.Err.Message}
		} else {
			v.Facts = append(v.Facts, spec.F("algo", d.Algo), spec.F("proto", d.Proto))
			if d.Fallback {
				v.Why = "NCCL_ALGO excluded " + d.Algo.String() + " for " + d.Op.Func.String() + " yet it ran: silent Ring backup"
			}
		}
		t = append(t, v)
	}
	sort.SliceStable(t, func(i, j int) bool {
		si, sj := t[i].Scope == "op", t[j].Scope == "op"
		if si != sj {
			return !si
		}
		return ruleIndex(t[i].Rule) < ruleIndex(t[j].Rule)
	})
	return t
}
