package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// CollNet (SHARP through the network plugin): the switch, the graphs, the
// cross-rank agreement, the node threshold and arity, the setup and the
// reduction support matrix.

var collNetPlugin22 = &Rule{
	ID: "G-COLLNET-PLUGIN-1", Layer: LayerDevice, Cap: CapCollNet, Title: "a CollNet object is attached",
	Doc:  `CollNet can be enabled only if collNetSupport(comm), i.e. a CollNet object is attached to the communicator. Without one NCCL does not even read NCCL_COLLNET_ENABLE.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	node: true,
	init: func(r *initRun) {
		if r.cur.chosen != nil && r.cur.chosen.external != nil && r.cur.collNetOK {
			r.emit(Verdict{Outcome: Pass, Why: "a CollNet object is attached"})
			return
		}
		r.emit(Verdict{Outcome: Fail, Why: "no CollNet object attached: NCCL_COLLNET_ENABLE is not read"})
	},
}

var collNetEnv22 = &Rule{
	ID: "G-COLLNET-ENV-1", Layer: LayerDevice, Cap: CapCollNet, Title: "NCCL_COLLNET_ENABLE",
	Doc:  `Read only when a CollNet object is attached (per rank): enabled iff the string is exactly "1" (strcmp). "01", " 1" and "true" leave CollNet disabled.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{"NCCL_COLLNET_ENABLE set by environment to %s."},
	node: true,
	init: func(r *initRun) {
		v, set := r.env.Lookup("NCCL_COLLNET_ENABLE")
		facts := []Fact{F("NCCL_COLLNET_ENABLE", envShow(v, set))}
		if set && v == "1" {
			r.comm.Evidence.Raise(CapCollNet, LevelRequested)
		}
		if !(r.cur.chosen != nil && r.cur.chosen.external != nil && r.cur.collNetOK) {
			r.emit(Verdict{Outcome: Skip, Why: "not read: no CollNet object", Facts: facts})
			return
		}
		if !set {
			r.emit(Verdict{Outcome: Fail, Why: "NCCL_COLLNET_ENABLE unset: CollNet disabled (default)", Facts: facts})
			return
		}
		log := []string{"NCCL_COLLNET_ENABLE set by environment to " + v + "."}
		if v != "1" {
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("%q is not exactly \"1\": CollNet disabled", v), Facts: facts, Log: log})
			return
		}
		r.cur.collNetEnable = true
		r.emit(Verdict{Outcome: Pass, Level: LevelRequested, Why: `NCCL_COLLNET_ENABLE is exactly "1"`, Facts: facts, Log: log})
	},
}

// collNetEnv28 reads NCCL_COLLNET_ENABLE into config.collnetEnable at
// config time (before the network), for every communicator.
var collNetEnv28 = &Rule{
	ID: "G-COLLNET-ENV-1", Layer: LayerEnv, Cap: CapCollNet, Title: "NCCL_COLLNET_ENABLE",
	Doc:  `At every communicator init, before the network plugins, a set NCCL_COLLNET_ENABLE is parsed with (int)strtol(value, NULL, 0) ("0x1", "01" and "1abc" give 1, "true" gives 0) and overrides config.collnetEnable (default 0). A value other than 0 or 1 is logged and set to 0.`,
	Ref:  Ref{Tag: "v2.28.3-1", File: "src/init.cc", Func: "envConfigOverride"},
	Logs: []string{"NCCL_COLLNET_ENABLE set by environment to %d.", "collnetEnable %d is not a valid value 0/1, set it to 0"},
	init: func(r *initRun) {
		v, set := r.env.Lookup("NCCL_COLLNET_ENABLE")
		facts := []Fact{r.comm.setting("NCCL_COLLNET_ENABLE")}
		if !set {
			r.emit(Verdict{Outcome: Fail, Why: "NCCL_COLLNET_ENABLE unset: config.collnetEnable stays 0", Facts: facts})
			return
		}
		n := strtolInt(v)
		var logs []string
		if !r.comm.fromConfigVar("NCCL_COLLNET_ENABLE") { // config.collnetEnable: no line
			logs = []string{fmt.Sprintf("NCCL_COLLNET_ENABLE set by environment to %d.", n)}
		}
		collNetEnableValue(r, v, int64(n), facts, logs)
	},
}

// collNetEnableValue is envConfigOverride's check of a set
// NCCL_COLLNET_ENABLE read as n (from v): only 0 and 1 are valid, anything
// else is logged and set to 0; 1 enables CollNet on every node. logs are
// the lines NCCL printed reading it.
func collNetEnableValue(r *initRun, v string, n int64, facts []Fact, logs []string) {
	// a value the config set was parsed by no one: the sentence cites the
	// field (parseCommConfig already refused anything but 0 and 1)
	read := fmt.Sprintf("%q reads as %d", v, n)
	if r.comm.fromConfigVar("NCCL_COLLNET_ENABLE") {
		read = facts[0].String() + " kept"
	}
	if n != 0 && n != 1 {
		logs = append(logs, fmt.Sprintf("collnetEnable %d is not a valid value 0/1, set it to 0", int32(n)))
		r.emit(Verdict{Outcome: Fail, Why: read + ", not 0/1: set to 0", Facts: facts, Log: logs})
		return
	}
	if n == 0 {
		r.emit(Verdict{Outcome: Fail, Why: read + ": CollNet disabled", Facts: facts, Log: logs})
		return
	}
	r.allNodes(func(s *nodeState) { s.collNetEnable = true })
	r.emit(Verdict{Outcome: Pass, Level: LevelRequested, Why: read + ": config.collnetEnable = 1", Facts: facts, Log: logs})
}

var collNetPlugin28 = &Rule{
	ID: "G-COLLNET-PLUGIN-1", Layer: LayerDevice, Cap: CapCollNet, Title: "a CollNet object is attached",
	Doc:  `If collNetSupport(comm) is false (no CollNet object attached), config.collnetEnable is forced to 0 without a log line.`,
	Ref:  Ref{Tag: "v2.28.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		attached := s.chosen != nil && s.chosen.external != nil && s.collNetOK
		if attached {
			r.emit(Verdict{Outcome: Pass, Why: "a CollNet object is attached"})
			return
		}
		why := "no CollNet object attached"
		if s.collNetEnable {
			why += ": config.collnetEnable forced to 0"
		}
		s.collNetEnable = false
		r.emit(Verdict{Outcome: Fail, Why: why})
	},
}

// collNetGraph is G-COLLNET-GRAPH-1: the CollNetChain (pattern 3) and
// CollNetDirect (pattern 6) searches run only where CollNet is enabled.
func collNetGraph(ref Ref, directCap func(nGPUs int) int) *Rule {
	return &Rule{
		ID: "G-COLLNET-GRAPH-1", Layer: LayerGraph, Cap: CapCollNet, Title: "CollNet graphs",
		Doc:  `Only where CollNet is enabled: search CollNetChain (pattern TREE with collNet set, channels = ring channels) and CollNetDirect (pattern 6). The search uses only NET nodes flagged coll (the CollNet plugin's devices); without one both find 0 channels.`,
		Ref:  ref,
		Logs: []string{"Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d"},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if !s.collNetEnable {
				r.emit(Verdict{Outcome: Skip, Why: "CollNet not enabled on this rank: no CollNet graph searched"})
				return
			}
			s.graphs.CollNetChain = GraphInfo{Pattern: 3}
			s.graphs.CollNetDirect = GraphInfo{Pattern: 6}
			nr, _ := r.topoNode(s)
			if nr == nil {
				r.emit(Verdict{Outcome: Skip, Why: "no topology search"})
				return
			}
			if !nr.Searched[topo.GraphCollNetChain] {
				r.emit(Verdict{Outcome: Fail, Why: "CollNet is enabled here but not on every node: no CollNet graph searched, the consensus is 0 channels"})
				return
			}
			s.graphs.CollNetChain = graphInfo(nr.Graph(topo.GraphCollNetChain), true)
			s.graphs.CollNetDirect = graphInfo(nr.Graph(topo.GraphCollNetDirect), true)
			out := Pass
			if s.graphs.CollNetChain.NChannels == 0 {
				out = Fail
			}
			r.emit(Verdict{Outcome: out, Why: fmt.Sprintf("CollNetChain %d channel(s), CollNetDirect %d channel(s) over %d CollNet device(s)",
				s.graphs.CollNetChain.NChannels, s.graphs.CollNetDirect.NChannels, s.collNetDevs),
				Facts: []Fact{F("collnet_devices", s.collNetDevs), F("gpus", len(nr.Ranks)), F("direct_cap", directCap(len(nr.Ranks)))}})
		},
	}
}

var collNetCons = &Rule{
	ID: "G-COLLNET-CONS-1", Layer: LayerGraph, Cap: CapCollNet, Title: "ranks agree on CollNet",
	Doc: `After AllGather3 each graph's nChannels is the minimum over all ranks; if CollNetChain has 0 channels, CollNet is disabled on every rank. A rank that did not enable CollNet contributes 0 and so disables everyone.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	init: func(r *initRun) {
		c := r.comm
		var zero []string
		anyOn := false
		for _, s := range r.nodes {
			if s.collNetEnable && s.graphs.CollNetChain.NChannels > 0 {
				anyOn = true
			} else {
				zero = append(zero, nodeList(s.nodes))
			}
		}
		if !anyOn {
			r.emit(Verdict{Outcome: Fail, Why: "CollNetChain has 0 channels on every rank: CollNet disabled"})
			return
		}
		if len(zero) > 0 {
			r.emit(Verdict{Outcome: Fail, Why: "CollNetChain has 0 channels on node(s) " + strings.Join(zero, ", ") + ": the minimum is 0, CollNet disabled on every rank"})
			return
		}
		c.CollNetSupport = true
		c.Graphs.CollNetChain = r.nodes[0].graphs.CollNetChain
		c.Graphs.CollNetDirect = r.nodes[0].graphs.CollNetDirect
		for _, s := range r.nodes[1:] {
			c.Graphs.CollNetChain.NChannels = min(c.Graphs.CollNetChain.NChannels, s.graphs.CollNetChain.NChannels)
			c.Graphs.CollNetDirect.NChannels = min(c.Graphs.CollNetDirect.NChannels, s.graphs.CollNetDirect.NChannels)
		}
		r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("every rank has CollNetChain channels (min %d)", c.Graphs.CollNetChain.NChannels)})
	},
}

func nodeList(ns []int) string {
	if len(ns) > 4 {
		return fmt.Sprintf("%d..(%d nodes)", ns[0], len(ns))
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

var collNetThreshold = &Rule{
	ID: "G-COLLNET-THRESH-1", Layer: LayerGraph, Cap: CapCollNet, Title: "CollNet node threshold",
	Doc:  `Once nNodes is known: if nNodes < NCCL_COLLNET_NODE_THRESHOLD (default 2), CollNet is disabled. So CollNet is never used on a single node by default.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{"Communicator has %d nodes which is less than CollNet node threshold %d, disabling CollNet"},
	init: func(r *initRun) {
		c := r.comm
		th := r.param("NCCL_COLLNET_NODE_THRESHOLD")
		facts := []Fact{F("nNodes", c.NNodes), F("threshold", th)}
		if !c.CollNetSupport {
			r.emit(Verdict{Outcome: Skip, Why: "CollNet already disabled", Facts: facts})
			return
		}
		if int64(c.NNodes) < th {
			c.CollNetSupport = false
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("%d node(s) < threshold %d: CollNet disabled", c.NNodes, th), Facts: facts,
				Log: []string{fmt.Sprintf("Communicator has %d nodes which is less than CollNet node threshold %d, disabling CollNet", c.NNodes, th)}})
			return
		}
		r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("%d nodes ≥ threshold %d", c.NNodes, th), Facts: facts})
	},
}

var collNetArity22 = &Rule{
	ID: "G-COLLNET-ARITY-1", Layer: LayerGraph, Cap: CapCollNet, Title: "CollNet GPUs per node",
	Doc:  `If any node has more than NCCL_MAX_DIRECT_ARITY+1 (8) local ranks, CollNet is disabled for the communicator with a WARN.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{"CollNet currently only supports up to %d GPUs per node, disabling CollNet"},
	init: func(r *initRun) {
		c := r.comm
		limit := r.rs.Consts.MaxDirectArity + 1
		facts := []Fact{F("maxLocalRanks", c.MaxLocalRanks), F("limit", limit)}
		if !c.CollNetSupport {
			r.emit(Verdict{Outcome: Skip, Why: "CollNet already disabled", Facts: facts})
			return
		}
		if c.MaxLocalRanks > limit {
			c.CollNetSupport = false
			msg := fmt.Sprintf("CollNet currently only supports up to %d GPUs per node, disabling CollNet", limit)
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("a node has %d local ranks > %d: CollNet disabled", c.MaxLocalRanks, limit), Facts: facts, Log: []string{msg}})
			return
		}
		r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("at most %d local ranks per node", c.MaxLocalRanks), Facts: facts})
	},
}

// collNetFallback is what a failed CollNet setup turns off: the
// communicator's collNetSupport (up to 2.26.6), or from 2.27.3 its
// config's collnetEnable, which communicators split from it copy.
type collNetFallback int

const (
	collNetOffSupport collNetFallback = iota
	collNetOffConfig
)

func (f collNetFallback) String() string {
	if f == collNetOffConfig {
		return "comm->config.collnetEnable = 0 (a communicator split from this one copies its config: CollNet off there too)"
	}
	return "comm->collNetSupport = 0 (this communicator only)"
}

// collNetSetup is G-COLLNET-SETUP-1; headsFromNVLS marks 2.28.3+, where
// the NVLS heads are used when NVLS is supported; off is what a failure
// turns off.
func collNetSetup(ref Ref, headsFromNVLS bool, off collNetFallback) *Rule {
	return &Rule{
		ID: "G-COLLNET-SETUP-1", Layer: LayerGraph, Cap: CapCollNet, Title: "CollNet setup",
		Doc:  `ncclCollNetSetup (collNetTrySetup in src/init.cc up to 2.21.5) runs when CollNet is still enabled; its result is ignored by the caller, so a failure only disables CollNet. Heads are the unique local GPUs at index 0 of each CollNetDirect channel the ranks agreed on (2.28.3+: the NVLS heads when NVLS is supported), each rank its own node's (the count is rank 0's). Each head connects the CollNet send and receive transports per channel (the plugin's connect may refuse the group: CollNetBackend.ConnectError); after channel 0 and at the end ncclTransportCollNetCheck all-gathers the failure flags within the node, and a failure makes local rank 0 WARN "Cannot initialize CollNet, using point-to-point network instead" and return ncclSystemError (the failing heads print the connect's error return first, every rank the check's after: Consts.CollNetFail); the fail path frees the CollNet resources and turns CollNet off: comm->collNetSupport = 0 up to 2.26.6, comm->config.collnetEnable = 0 from 2.27.3 (copied by communicators split from this one). The communicator runs on the point-to-point network.`,
		Ref:  ref,
		Logs: []string{CollNetInitWarn, "%s:%d -> %d", "rank %d Connected CollNet", "Connected Collnet Chains %s"},
		init: func(r *initRun) {
			c := r.comm
			if !c.CollNetSupport {
				r.emit(Verdict{Outcome: Skip, Why: "CollNet disabled"})
				return
			}
			heads := c.Topo.CollNetDirectHeads
			from := "CollNetDirect heads"
			if headsFromNVLS && c.NVLSSupport {
				from = "NVLS heads"
				heads = c.Topo.NvlsHeads
			}
			c.CollNetHeads = heads
			for _, s := range r.nodes {
				if cn := s.chosen.external.CollNet; cn != nil && cn.ConnectError != "" {
					c.CollNetSupport = false
					logs, at := collNetFailLines(&r.rs.Consts)
					r.emit(Verdict{Outcome: Fail, Why: "CollNet connect failed on node " + nodeList(s.nodes) + " (" + cn.ConnectError + "): CollNet disabled, the point-to-point network instead",
						Facts: append([]Fact{F("connect", cn.ConnectError), F("fallback", off.String())}, at...),
						Log:   logs})
					return
				}
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: fmt.Sprintf("%d head(s) per node from %s; CollNet connected", c.CollNetHeads, from),
				Facts: []Fact{F("heads", c.CollNetHeads)}})
		},
	}
}

var collNetMatrix = &Rule{
	ID: "G-COLLNET-MATRIX-1", Layer: LayerGraph, Cap: CapCollNet, Title: "CollNet reduction support matrix",
	Doc: `Head ranks call reduceSupport(datatype, redop) for redop in {sum, prod, max, min} and every datatype; each answer is all-gathered (non-heads say nothing); a pair is supported iff at least one head said yes and no head said no.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/transport/coll_net.cc", Func: "ncclCollNetSetup"},
	init: func(r *initRun) {
		c := r.comm
		if !c.CollNetSupport {
			r.emit(Verdict{Outcome: Skip, Why: "CollNet disabled"})
			return
		}
		nTypes := NumDataTypes
		if !r.rs.Consts.HasFP8 {
			nTypes = int(Float8e4m3)
		}
		var yes, no [4][NumDataTypes]bool
		rank := 0
		var dissent []string
		resolved := map[*CollNetBackend][NumRedOps][NumDataTypes]bool{}
		nodeCN := r.nodeCollNets()
		for ni, nd := range c.System.Nodes {
			cn := nodeCN[ni]
			for l := range nd.GPUs {
				if l < c.CollNetHeads && cn != nil {
					bits, ok := resolved[cn]
					if !ok {
						bits = cn.ReduceSupport.Bits()
						resolved[cn] = bits
					}
					if o, ok := cn.RankReduceSupport[rank]; ok {
						bits = o.Bits()
					}
					for op := Sum; op <= Min; op++ {
						for dt := DataType(0); int(dt) < nTypes; dt++ {
							if bits[op][dt] {
								yes[op][dt] = true
							} else {
								if !no[op][dt] && yes[op][dt] {
									dissent = append(dissent, fmt.Sprintf("rank %d says no to %s/%s", rank, op.Short(), dt.Short()))
								}
								no[op][dt] = true
							}
						}
					}
				}
				rank++
			}
		}
		var sup []string
		for op := Sum; op <= Min; op++ {
			var ts []string
			for dt := DataType(0); int(dt) < nTypes; dt++ {
				c.CollNetMatrix[op][dt] = yes[op][dt] && !no[op][dt]
				if c.CollNetMatrix[op][dt] {
					ts = append(ts, dt.Short())
				}
			}
			if len(ts) > 0 {
				sup = append(sup, op.Short()+":"+strings.Join(ts, ","))
			}
		}
		why := "supported pairs: " + strings.Join(sup, " ")
		if len(sup) == 0 {
			why = "no (redop, datatype) pair is supported by every head"
		}
		facts := []Fact{F("heads_per_node", c.CollNetHeads)}
		if len(dissent) > 0 {
			facts = append(facts, F("dissent", strings.Join(dissent[:min(4, len(dissent))], "; ")))
		}
		r.emit(Verdict{Outcome: Info, Why: why, Facts: facts})
	},
}

// nodeCollNets maps each node to its chosen plugin's CollNet object (nil
// where the chosen network has none).
func (r *initRun) nodeCollNets() []*CollNetBackend {
	out := make([]*CollNetBackend, len(r.comm.System.Nodes))
	for _, s := range r.nodes {
		var cn *CollNetBackend
		if s.chosen != nil && s.chosen.external != nil {
			cn = s.chosen.external.CollNet
			if cn == nil {
				cn = &CollNetBackend{}
			}
		}
		for _, n := range s.nodes {
			out[n] = cn
		}
	}
	return out
}
