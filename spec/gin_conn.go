package spec

import "fmt"

// ginDisabledWarn is ncclGinConnectOnce's (and, 2.29.2–2.30.4,
// ncclRmaProxyConnectOnce's) WARN for NCCL_GIN_ENABLE=0.
const ginDisabledWarn = "GIN is disabled."

// ginConnection is comm->globalGinSupport's connection type (2.29.7+):
// FULL connects every rank, RAIL (NCCL_CROSS_NIC=0) only the ranks of the
// rank's rail team, the same local index on every LSA team, through the
// GPU's local GIN devices (ncclTopoGetLocalGinDevs, the NET devices
// ncclTopoGetLocalNet would give its channels).
func ginConnection(g GINState, form int, env Env) string {
	switch {
	case !g.Symmetric:
		return ""
	case form == 2 && crossNicOff(env):
		return "rail"
	}
	return "full"
}

// ginConnRule is G-GIN-CONN-1: what GIN connection a symmetric window
// registration (ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, the
// oracle's "buffers": "window") makes on a communicator spanning nodes,
// and where NCCL_GIN_ENABLE=0 stops it with "GIN is disabled."
// (ncclInternalError from the registration; the communicator itself was
// built). Per release: 2.28.7–2.28.9 give symmetric memory one node only,
// so only a device communicator the user asks GIN of connects it (no
// gatesim input); 2.29.2–2.29.3 ncclSymkInitOnce asks GIN for rail
// signals on every multi-node communicator with ginSupport, and
// NCCL_GIN_ENABLE is read only there; 2.29.7–2.30.4 setLocalGinType gives
// the type none, so symmetric memory does not span nodes and the
// registration returns at !symmetricSupport; 2.30.7 keeps the type, and
// ncclSymkInitOnce asks GIN when NCCL_SYM_GIN_KERNELS_ENABLE is not 0.
//
// Ref: v2.28.9-1 src/gin/gin_host.cc ncclGinConnectOnce; v2.29.2-1
// src/sym_kernels.cc ncclSymkInitOnce, src/dev_runtime.cc
// ncclDevrCommCreateInternal, src/init.cc initTransportsRank (ginSupport);
// v2.29.7-1 src/gin/gin_host.cc setLocalGinType, ncclGinConnectOnce,
// src/dev_runtime.cc ncclCommWindowRegister; v2.30.7-1
// src/sym_kernels.cc ncclSymkInitOnce, src/gin/gin_host.cc
// ncclGinConnectOnce
func ginConnRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-GIN-CONN-1", Layer: LayerGraph, Title: "GIN connection of symmetric windows (NCCL_GIN_ENABLE, NCCL_CROSS_NIC)",
		Doc: `A symmetric window registration on a communicator whose symmetric memory spans nodes over GIN connects GIN (ncclSymkInitOnce asks for GIN resources; ncclGinConnectOnce). 2.28.7–2.28.9: symmetric memory is one node only, no window connects GIN. 2.29.2–2.29.3: every multi-node communicator with a GIN object (NCCL_CROSS_NIC not 0, no fused NIC) asks for rail signals; with NCCL_GIN_ENABLE=0 ncclGinConnectOnce WARNs "GIN is disabled." and the registration returns ncclInternalError. 2.29.7–2.30.4: NCCL_GIN_ENABLE=0 makes the GIN type none (setLocalGinType), symmetric memory stays on one node and no registration connects GIN. 2.30.7: the type is kept; ncclSymkInitOnce asks GIN unless NCCL_SYM_GIN_KERNELS_ENABLE=0, and NCCL_GIN_ENABLE=0 WARNs "GIN is disabled." there. From 2.29.7 the connection is FULL (every rank) or, with NCCL_CROSS_NIC=0, RAIL: each rank connects only its rail team (the same local index on every node) through its GPU's local GIN devices (ncclTopoGetLocalGinDevs).`,
		Ref: ref, Logs: []string{ginDisabledWarn},
		init: func(r *initRun) {
			form := r.rs.Consts.GinSymSupport
			if form == 0 {
				r.emit(Verdict{Outcome: Skip, Why: "symmetric memory is one node only: no window registration connects GIN (a device communicator the user asks GIN of is not an input)"})
				return
			}
			g := r.ginState()
			nodes := len(r.comm.System.Nodes)
			if nodes < 2 || !g.Symmetric {
				why := "one node: symmetric windows need no GIN"
				if nodes >= 2 {
					why = "symmetric memory does not span nodes (" + g.Why + "): a window registration returns at !symmetricSupport"
				}
				r.emit(Verdict{Outcome: Skip, Why: why})
				return
			}
			conn := ginConnection(g, form, r.env)
			facts := []Fact{F("gin", ginTypeName(g.Type)), F("connection", conn)}
			if conn == "rail" {
				lsa := max(1, len(r.comm.System.Nodes[0].GPUs))
				facts = append(facts, F("rail_peers", max(1, r.comm.System.NRanks()/lsa)))
			}
			// the tuning model reads the variable the same way (unset: on)
			if v, _, _ := intParam(r.env, "NCCL_SYM_GIN_KERNELS_ENABLE", 1); form == 2 && v == 0 {
				r.emit(Verdict{Outcome: Pass, Why: "NCCL_SYM_GIN_KERNELS_ENABLE=0: ncclSymkInitOnce asks no GIN resources, the windows register without a GIN connection", Facts: facts})
				return
			}
			if r.param("NCCL_GIN_ENABLE") == 0 {
				// the WARN is printed at registration, not at init, so it is
				// no line of the communicator's log
				r.emit(Verdict{Outcome: Fail, Why: "NCCL_GIN_ENABLE=0: a symmetric window registration connects GIN, WARNs \"" + ginDisabledWarn + "\" and returns ncclInternalError (ncclGinConnectOnce)", Facts: append(facts, F("warn", ginDisabledWarn))})
				return
			}
			why := fmt.Sprintf("a symmetric window registration connects GIN %s", ginTypeName(g.Type))
			switch conn {
			case "rail":
				why += ", rail only (NCCL_CROSS_NIC=0): each rank to its rail team"
			case "full":
				why += " to every rank"
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: why, Facts: facts})
		},
	}
}
