package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.18.6 (tag v2.18.6-1, commit 0b083e5), a backward delta from
// 2.19.1: what 2.18.6 had where 2.19.1 differs. 2.18.6 is a maintenance
// branch off 2.18.5 (2.19.1 descends from 2.18.5, not from it); its own
// change, an NVLS registration fix, decides nothing, so this delta is also
// what 2.19.1 changed on the 2.18 line.
//
// Before 2.19.1: net and CollNet plugins v6, v5 and v4 (no device offload),
// no tuner plugin, no Ring backup (NCCL_ALGO cannot disable Ring for a
// function other than AllReduce instead, and an empty table is an
// ncclInternalError), AllGather and ReduceScatter on Ring only, the NVLS
// and NVLSTree bandwidth and latency of the graph and the network alone,
// and the older CollNet and NVLS latency constants. comm->channelSize is a
// size_t, so an unset NCCL_AGG_CHANNEL_SIZE (-2) is a user size.
//
// Read at the tag and not modelled here (docs/releases.md lists them): the
// channel and thread counts of getAlgoInfo and the aggregation of
// consecutive same-function operations (the schedule 2.19.4's delta sets), the
// bandwidth scaling of ncclTopoGetAlgoTime for an aggregate's nChannels,
// collNetChannels from
// max(nChannels, nvlsChannels) and GDR reads without an NVLink peer on
// every architecture (neither changes anything gatesim outputs). The 1 MiB
// Simple buffer on ARM (computeBuffSizes, SimpleBuffSizeARM below) and the
// search's start of an NVLS channel (ncclTopoSearchRecNet, the topology
// stage's NVLSHeads) are modelled. The search
// budget, sm90SpeedArrayIntra without 50, NCCL_CROSS_NIC on every graph,
// the NETs and a NET's closest GPUs of ncclTopoSearchRecNet in list and
// index order, the NVLS graph ranking, the NVLS
// channels uncapped across nodes and pass 2 raising NVLS bwIntra are
// topo.Apply2_18_6.

var tag2186 = "v2.18.6-1"

func ref2186(file, fn string) Ref { return Ref{Tag: tag2186, File: file, Func: fn} }

// netLibOneName is G-NET-LIB-1 up to 2.20.5 (ncclNetPluginInit): one
// name, libnccl-net-<value>.so or libnccl-net.so.
func netLibOneName(ref Ref) *Rule {
	return &Rule{
		ID: "G-NET-LIB-1", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "net plugin library names",
		Doc:  `If NCCL_NET_PLUGIN is set and non-empty, dlopen libnccl-net-<value>.so (the value alone is never tried); otherwise dlopen libnccl-net.so. One name, one attempt.`,
		Ref:  ref,
		Logs: []string{"Plugin name set by env to %s"},
		node: true,
		init: func(r *initRun) {
			s, nd := r.cur, r.cur.node
			val, set := r.env.Lookup("NCCL_NET_PLUGIN")
			name := "libnccl-net.so"
			var logs []string
			if set && val != "" {
				name = "libnccl-net-" + val + ".so"
				logs = append(logs, "Plugin name set by env to "+name)
				r.comm.Evidence.Raise(CapNetPlugin, LevelRequested)
			}
			facts := []Fact{F("NCCL_NET_PLUGIN", envShow(val, set)), F("tried", name)}
			s.libTried = append(s.libTried, name)
			lib, dlerr, enoent := nd.open(name)
			if lib != nil {
				s.lib, s.libName = lib, name
				r.emit(Verdict{Outcome: Pass, Level: LevelDiscovered, Why: "dlopen(" + name + ") opened " + lib.Path, Facts: facts, Log: logs})
				return
			}
			if enoent {
				s.libMissing = append(s.libMissing, name)
			}
			r.emit(Verdict{Outcome: Fail, Why: "dlopen(" + name + ") failed: " + dlerr, Facts: facts, Log: logs})
		},
	}
}

// netLibNone18 is G-NET-LIB-2 of 2.18.x and its two INFO lines.
var netLibNone18 = &Rule{
	ID: "G-NET-LIB-2", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "no library: internal networks",
	Doc:  `When the library does not open, NCCL logs dlopen's errno and dlerror text and uses only its internal networks (IB, then Socket), for the whole process. The errno printed is whatever dlopen left; gatesim prints 2 (ENOENT) for a missing file and 0 otherwise.`,
	Ref:  ref2186("src/net.cc", "ncclNetPluginInit"),
	Logs: []string{"NET/Plugin : Plugin load (%s) returned %d : %s", "NET/Plugin : No plugin found, using internal implementation"},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		if s.lib != nil {
			r.emit(Verdict{Outcome: Skip, Why: "a plugin library was opened"})
			return
		}
		name := strings.Join(s.libTried, " ")
		_, dlerr, enoent := s.node.open(name) // dlopen is pure here: the same answer again
		errno := 0
		if enoent {
			errno = 2
		}
		logs := []string{fmt.Sprintf("NET/Plugin : Plugin load (%s) returned %d : %s", name, errno, dlerr),
			"NET/Plugin : No plugin found, using internal implementation"}
		r.emit(Verdict{Outcome: Fail, Why: "no external network plugin: internal IB and Socket only", Log: logs})
	},
}

// pluginABI18 is G-NET-ABI-1 (collNet false) or G-COLLNET-ABI-1 (true) of
// 2.18.x: ncclNetPluginInit probes _v6, then _v5, then _v4.
func pluginABI18(collNet bool) *Rule {
	sym, loaded, id, title, capN := "ncclNetPlugin", "net", RuleID("G-NET-ABI-1"), "net plugin ABI", CapNetPlugin
	doc := `Probe ncclNetPlugin_v6, then _v5, then _v4; the first found is adapted to v6. With none the library is closed, only the internal networks remain, and CollNet is not probed.`
	if collNet {
		sym, loaded, id, title, capN = "ncclCollNetPlugin", "coll", "G-COLLNET-ABI-1", "CollNet plugin ABI", CapCollNet
		doc = `Only after a net symbol was accepted in the same library: probe ncclCollNetPlugin_v6, then _v5, then _v4. Failure is not fatal: the net plugin is used without CollNet.`
	}
	return &Rule{
		ID: id, Layer: LayerABI, Cap: capN, Title: title, Doc: doc,
		Ref: ref2186("src/net.cc", "ncclNetPluginInit"),
		Logs: []string{"NET/Plugin: Failed to find " + sym + "_v6 symbol.", "NET/Plugin: Loaded " + loaded + " plugin %s (v5)",
			"NET/Plugin: Failed to find " + sym + " symbol (v4 or v5)."},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.lib == nil || (collNet && s.netABI == 0) {
				r.emit(Verdict{Outcome: Skip, Why: "no plugin library opened, or no net symbol accepted"})
				return
			}
			window := r.rs.Consts.NetABI
			syms := s.lib.NetSymbols
			if collNet {
				syms = s.lib.CollNetSymbols
			}
			v := probe(syms, window)
			facts := []Fact{F("exports", joinInts(syms)), F("accepts", joinInts(window))}
			var logs []string
			if v != window[0] {
				logs = append(logs, fmt.Sprintf("NET/Plugin: Failed to find %s_v%d symbol.", sym, window[0]))
			}
			if v == 0 {
				logs = append(logs, "NET/Plugin: Failed to find "+sym+" symbol (v4 or v5).")
				if collNet {
					r.emit(Verdict{Outcome: Fail, Why: "no accepted " + sym + " symbol: no CollNet", Facts: facts, Log: logs})
					return
				}
				r.emit(Verdict{Outcome: Fail, Why: "no accepted " + sym + " symbol: the library is closed", Facts: facts, Log: logs})
				s.lib = nil
				return
			}
			name := pluginLoadNameV(s.lib, v, r.env)
			if collNet {
				s.collNetABI = v
				name = collNetNameV(s.lib, v)
			} else {
				s.netABI = v
			}
			if v != window[0] {
				logs = append(logs, fmt.Sprintf("NET/Plugin: Loaded %s plugin %s (v%d)", loaded, name, v))
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("%s_v%d accepted", sym, v), Facts: facts, Log: logs})
		},
	}
}

var impl18Rule = implRule(ref2186("src/graph/tuning.cc", "ncclTopoTuneModel"),
	`Modelled cells: Broadcast, Reduce, AllGather and ReduceScatter on Ring only; AllReduce on every algorithm. NVLS and NVLSTree have Simple only. Anything else keeps bandwidth 0.`,
	impl18)

// en18 is G-TUNE-EN-1 of 2.18.x, with the WARN of the hard-set CollNet
// rescue.
var en18 = enableRuleWarn(ref2186("src/graph/tuning.cc", "ncclTopoTuneModel"),
	`After NCCL_ALGO/NCCL_PROTO: NVLSTree off on one node; without CollNet support CollNetDirect and CollNetChain off, and NVLS off across nodes, and if that leaves Ring, Tree, NVLS and NVLSTree all off (a hard-set CollNet request) Ring and Tree are re-enabled with a WARN; with CollNet, CollNetDirect off without an NVSwitch. A disabled algorithm or protocol gets bandwidth 0, except that NCCL_ALGO never disables Ring for a function other than AllReduce ("that allows to run real apps with NCCL_ALGO=TREE"): NCCL_ALGO is one list for every function, and Broadcast, Reduce, AllGather and ReduceScatter have no cell but Ring's, so with NCCL_ALGO=Tree they run Ring without a line. That Ring is a fallback, and this gate decides it.`)

var release2_18_6 = Release{
	Version: V2_18_6,
	Tag:     tag2186,
	Consts:  consts2_18_6,
	Topo:    topo.Apply2_18_6,
	Tuning:  tuningBack2_18_6,
	Rules:   back2_18_6,
	// Against 2.18.5 only the lines a refused CollNet group prints from
	// move (CollNetFail); 2.18.6 keeps host copies of the device peer
	// pointers (src/channel.cc initChannel, src/transport/nvls.cc
	// ncclNvlsSetup) instead of copying them back from the device: a fix;
	// no gate or rule differs.
}

func consts2_18_6(rs *Ruleset) {
	rs.SetParamDefault("NCCL_CUMEM_ENABLE", 0, ref2186("src/misc/cudawrap.cc", "CuMemEnable"))
	// a GDR receive of any GPU flushes (G-NET-CONN-FLUSH-1)
	rs.SetParamDefault("NCCL_NET_FORCE_FLUSH", 1, ref2186("src/graph/paths.cc", "NetForceFlush"))
	rs.SetConst("NetABI", []int{6, 5, 4}, ref2186("src/net.cc", "ncclNetPluginInit"))
	rs.SetConst("TunerABI", []int{}, ref2186("src/misc/tuner.cc", "ncclLoadTunerPlugin"))
	rs.SetConst("RingBackup", false, ref2186("src/enqueue.cc", "getAlgoInfo"))
	rs.SetConst("SimpleBuffSizeARM", 1<<20, ref2186("src/init.cc", "computeBuffSizes"))
	rs.SetConst("P2PLogBusID", true, ref2186("src/transport/p2p.cc", "p2pSendSetup"))
	setCollNetFail(rs, tag2186, collNetFailInit(269, 301, 641))
}

func tuningBack2_18_6(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2186}
	// registerIntraNodeBuffers registers CollNetDirect IPC buffers only
	tuningSet(d, &t.RegNVLS, TuningRegNVLSNone, enqueueCC, "registerIntraNodeBuffers")
	const model = "ncclTopoTuneModel"
	for _, a := range []Algo{CollNetDirect, CollNetChain} {
		tuningSet(d, &t.BaseLat[a][LL], 6.8, tuningCC, "baseLat")
		tuningSet(d, &t.BaseLat[a][LL128], 14.0, tuningCC, "baseLat")
	}
	tuningSet(d, &t.BaseLat[NVLS][Simple], 23.0, tuningCC, "baseLat")
	tuningSet(d, &t.BaseLat[NVLSTree][Simple], 23.0, tuningCC, "baseLat")
	nv, pci, net := &t.HwLat[TuningHwNVLink], &t.HwLat[TuningHwPCI], &t.HwLat[TuningHwNet]
	tuningSet(d, &nv[Tree][Simple], 4.0, tuningCC, "hwLat")
	tuningSet(d, &nv[CollNetDirect][Simple], 8.0, tuningCC, "hwLat")
	tuningSet(d, &nv[CollNetChain][Simple], 4.75, tuningCC, "hwLat")
	tuningSet(d, &nv[NVLS][Simple], 0.0, tuningCC, "hwLat")
	tuningSet(d, &nv[NVLSTree][Simple], 0.0, tuningCC, "hwLat")
	tuningSet(d, &pci[Tree][Simple], 6.0, tuningCC, "hwLat")
	tuningSet(d, &pci[CollNetDirect][Simple], 8.0, tuningCC, "hwLat")
	tuningSet(d, &pci[CollNetChain][Simple], 8.0, tuningCC, "hwLat")
	tuningSet(d, &net[Tree][Simple], 14.0, tuningCC, "hwLat")
	tuningSet(d, &net[CollNetDirect][Simple], 10.7, tuningCC, "hwLat")
	tuningSet(d, &net[CollNetChain][Simple], 14.0, tuningCC, "hwLat")
	tuningSet(d, &net[NVLSTree][Simple], 19.0, tuningCC, "hwLat")
	tuningSet(d, &t.CollNetArityLat, 0.5, tuningCC, model)
	tuningSet(d, &t.NVLSBw, TuningNVLSBwGraph, tuningCC, model)
	tuningSet(d, &t.NVLSTreeRatioR18, 0.70, tuningCC, model)
	tuningSet(d, &t.NVLSLatNetOnly, true, tuningCC, model)
	tuningSet(d, &t.NVLSAGRS, false, tuningCC, model)
	tuningSet(d, &t.RingRestore, false, tuningCC, model)
	tuningSet(d, &t.RingKeptNonAllReduce, true, tuningCC, model)
	tuningSet(d, &t.RingBackup, false, tuningCC, "ncclTopoGetAlgoTime")
	// comm->channelSize is a size_t until 2.19.1 (ssize_t): the unset
	// NCCL_AGG_CHANNEL_SIZE (-2) passes scheduleCollTasksToPlan's
	// "channelSize > 0" as a user size of 2^64 - 2
	tuningSet(d, &t.AggChannelSizeUnsigned, true, "src/include/comm.h", "ncclComm.channelSize")
	return d.changes, tuningJoinErrs(d.errs)
}

func back2_18_6(rs *Ruleset) {
	rs.Replace(netLibNone18, "2.18.6 logs the dlopen errno and \"No plugin found, using internal implementation\"; 2.19.1 the dlerror text and the name")
	rs.Replace(pluginABI18(false), "net plugin ABI v6, v5, v4 (2.19.1: v7, v6, v5)")
	rs.Replace(pluginABI18(true), "CollNet plugin ABI v6, v5, v4 (2.19.1: v7, v6, v5)")
	rs.Remove("G-NET-ABI-2", ref2186("src/net.cc", "ncclNetPluginInit"), "no device offload before net v7 (2.19.1): every network is a host network")
	rs.Replace(impl18Rule, "NVLS serves AllGather and ReduceScatter from 2.19.1; 2.18.6 Ring only")
	rs.Replace(en18, "2.18.6 never disables Ring for a function other than AllReduce; 2.19.1 removes the exception and adds the Ring backup")
	rs.Remove("G-TUNE-RINGRESTORE-1", ref2186("src/graph/tuning.cc", "ncclTopoTuneModel"), "ringbdw and the restore arrive in 2.19.1")
	rs.Remove("G-SEL-BACKUP-1", ref2186("src/enqueue.cc", "getAlgoInfo"), "the Ring backup arrives in 2.19.1")
	rs.Remove("G-REG-UB-1", ref2186("src/enqueue.cc", "registerIntraNodeBuffers"), "NVLS user-buffer registration arrives in 2.19.1")
	rs.Remove("G-REG-SKIP-1", ref2186("src/enqueue.cc", "registerIntraNodeBuffers"), "nothing is registered before 2.19.1, so nothing falls back")
	rs.Add(errRule18(ref2186("src/enqueue.cc", "getAlgoInfo")), "G-SEL-PICK-1", "2.18.6 fails an operation with an empty table (WARN, ncclInternalError); 2.19.1 runs the Ring backup")
	for _, id := range []RuleID{"G-TUNER-LIB-1", "G-TUNER-ABI-1", "G-TUNER-INIT-1", "G-TUNER-CALL-1"} {
		rs.Remove(id, ref2186("src/init.cc", "initTransportsRank"), "the tuner plugin arrives in 2.19.1 (NCCL_TUNER_PLUGIN, ncclTunerPlugin_v1)")
	}
}
