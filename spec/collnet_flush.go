package spec

import (
	"fmt"

	"github.com/gatesim/gatesim/spec/topo"
)

// G-COLLNET-FLUSH-1: the flush of what the NIC wrote into GPU memory for
// a CollNet receive, and the gdrcopy path that replaces the network's
// iflush by a read of GPU memory over PCIe.

// GdrCopyFlush is how the proxies flush a GDR receive: through the
// network's (or CollNet plugin's) iflush, or, with gdrcopy, by a CPU read
// of a word of GPU memory mapped through gdrdrv.
type GdrCopyFlush struct {
	// On: NCCL_GDRCOPY_ENABLE=1 found a usable libgdrapi (ncclGdrCopy)
	// and NCCL_GDRCOPY_FLUSH_ENABLE is set non-zero: the receive proxies
	// keep gdcFlush and read it instead of posting an iflush.
	On bool
	// Why says why it is off, or on; Fails says the read is not possible
	// on this host (not x86_64, before 2.30.7): the first flushed receive
	// WARNs "NET: GDR Flush only supported on x86_64" and the proxy
	// returns ncclInternalError.
	Why   string
	Fails bool
	// Lib: ncclGdrCopy is set (NCCL_GDRCOPY_ENABLE=1 and libgdrapi.so
	// opens), whether or not it flushes.
	Lib bool
}

// GdrCopyFlush decides the gdrcopy flush of the communicator's receive
// proxies. NCCL_GDRCOPY_ENABLE must be exactly 1 (default 0), libgdrapi.so
// must open on the node (gatesim takes a library that opens for one whose
// gdrdrv driver answers with version 2.1 or newer, which ncclGdrInit
// checks), and NCCL_GDRCOPY_FLUSH_ENABLE non-zero (default 0).
//
// Ref: v2.28.9-1 src/init.cc initGdrCopy; src/include/gdrwrap.h
// ncclGdrInit; src/misc/gdrwrap.cc wrap_gdr_symbols; src/transport/net.cc
// recvProxyConnect; src/transport/coll_net.cc recvProxyConnect (v2.18.1-1 …
// v2.30.7-1 likewise); src/transport/net.cc and coll_net.cc
// recvProxyProgress (the x86_64 read; v2.30.7-1 ncclGdrCudaRead elsewhere)
func (c *Comm) GdrCopyFlush() GdrCopyFlush {
	if v, _ := c.Env.Lookup("NCCL_GDRCOPY_ENABLE"); !paramIs(v, 1) {
		return GdrCopyFlush{Why: "NCCL_GDRCOPY_ENABLE is not 1 (default 0): no gdrcopy, the proxies flush with iflush"}
	}
	if c.System == nil || len(c.System.Nodes) == 0 {
		return GdrCopyFlush{Why: "no node"}
	}
	if _, dlerr, _ := c.System.Nodes[0].dlopen("libgdrapi.so"); dlerr != "" {
		return GdrCopyFlush{Why: "NCCL_GDRCOPY_ENABLE=1 but libgdrapi.so does not open (" + dlerr + "): ncclGdrCopy stays NULL, the proxies flush with iflush"}
	}
	if v, ok := c.Env.Lookup("NCCL_GDRCOPY_FLUSH_ENABLE"); !ok || paramIs(v, 0) {
		return GdrCopyFlush{Lib: true, Why: "gdrcopy is on but NCCL_GDRCOPY_FLUSH_ENABLE is 0 (default): gdrcopy only syncs the FIFO, the proxies flush with iflush"}
	}
	g := GdrCopyFlush{On: true, Lib: true, Why: "gdrcopy flush (NCCL_GDRCOPY_ENABLE=1, NCCL_GDRCOPY_FLUSH_ENABLE=1, libgdrapi.so): a flushed receive is one CPU read of GPU memory over PCIe, no iflush"}
	switch {
	case c.Topo == nil || c.Topo.CPUArch == topo.ArchX86:
	case c.rs.Consts.GdrFlushAnyArch:
		g.Why += fmt.Sprintf("; the host is not x86_64 (%s): the read goes through ncclGdrCudaRead", c.Topo.CPUArch)
	default:
		g.Fails = true
		g.Why += fmt.Sprintf("; but the host is not x86_64 (%s): the first flushed receive WARNs \"NET: GDR Flush only supported on x86_64\" and its proxy returns ncclInternalError", c.Topo.CPUArch)
	}
	return g
}

// paramIs says whether an NCCL_PARAM value as written reads as want
// (strtoll; an empty or overflowing value keeps the default, so is never
// want here unless the caller's default is).
func paramIs(v string, want int64) bool {
	if v == "" {
		return false
	}
	n, overflow := strtoll(v)
	return !overflow && n == want
}

// CollNetFlush is what the CollNet connectors' receives do with what the
// NIC wrote into GPU memory (G-COLLNET-FLUSH-1): Conns the connectors of
// the graph ncclCollNetSetup takes the heads of (NVLS's with NVLS
// support from 2.28.3, else CollNetDirect's), and the gdrcopy flush.
type CollNetFlush struct {
	Conns   topo.CollNetConns
	GdrCopy GdrCopyFlush
}

// Flushes says each received step costs the proxy an iflush round trip
// through the CollNet plugin before the GPU may read it.
func (f CollNetFlush) Flushes() bool { return f.Conns.Flush && !f.GdrCopy.On }

// CollNetFlush decides the CollNet receives' flush of the communicator;
// zero without CollNet.
func (c *Comm) CollNetFlush() CollNetFlush {
	if c.Topo == nil || !c.CollNetSupport {
		return CollNetFlush{}
	}
	k := 0
	if c.NVLSSupport && c.rs.Consts.CollNetNVLSHeads {
		k = 1
	}
	f := CollNetFlush{Conns: c.Topo.CollNetConns[k]}
	if f.Conns.Flush {
		f.GdrCopy = c.GdrCopyFlush()
	}
	return f
}

// collNetFlushDoc is G-COLLNET-FLUSH-1.
const collNetFlushDoc = `A CollNet receive connector (recvSetup of the CollNet transport, on each head) with GPU Direct RDMA asks ncclTopoNeedFlush as a NET receive does (G-NET-CONN-FLUSH-1): below sm90, under NCCL_NET_FORCE_FLUSH (default 1 until 2.18.6), from 2.26.2 also with PCIe data and C2C completions. Where it must, the receive proxy (recvProxyProgress) flushes every step it receives, whatever its size, and every step of a registered task: through the CollNet plugin's iflush (of the shared buffer's received region; of the user buffer, piece by piece of maxCollBytes on one rank per node, G-REG-COLLNET-SPLIT-1, and for a registered ReduceScatter only this node's part) before it moves the tail the kernel waits on. NCCL_GDR_FLUSH_DISABLE is NCCL's IB transport's and does not reach a CollNet plugin's iflush. With gdrcopy (NCCL_GDRCOPY_ENABLE=1, a libgdrapi.so that opens, NCCL_GDRCOPY_FLUSH_ENABLE=1) the flush is one CPU read of mapped GPU memory over PCIe instead, NET and CollNet alike; until 2.30.4 that read exists only on x86_64, and elsewhere the first flushed receive WARNs "NET: GDR Flush only supported on x86_64" and the proxy returns ncclInternalError; from 2.30.7 it goes through ncclGdrCudaRead on other hosts. The heads are those of the CollNetDirect graph, from 2.28.3 those of the NVLS graph where NVLS is supported (ncclCollNetSetup). From 2.24.3 CollNet registers a buffer only through a connector with GPU Direct RDMA (collnetRegisterBuffer: NCCL_DIRECT_NIC; G-REG-SKIP-1). The simulator charges each CollNet step received from the network, and each flushed NET receive step, one flush: the profile's transport.net.flush.iflush (an RDMA read through the local NIC, a PCIe round trip, nominal 2 µs) or with gdrcopy transport.net.flush.gdrcopy (nominal 1 µs).`

// collNetFlushC2CDoc is what G-COLLNET-FLUSH-1 adds from 2.30.3.
const collNetFlushC2CDoc = ` From 2.30.3 a receive whose flush is for PCIe data and C2C completions (ncclTopoFlushC2c) and that has gdrcopy (ncclGdrCopy) pins its sync word with GDR_PIN_FLAG_FORCE_PCIE where libgdrapi has gdr_pin_buffer_v2 (GDRCopy 2.5 or newer, ncclGdcPinFlag); under NCCL_GDRCOPY_SYNC_ENABLE (default 1) the completions then travel over PCIe too and recvProxyConnect sets needFlush to none: no flush, NET and CollNet alike. Not reached by any modelled system: a system file does not say which GDRCopy a node's libgdrapi.so is, and gatesim takes it as older than 2.5, so a C2C receive keeps its flush (iflush, or the gdrcopy read) and the simulator charges it; the verdict says so where the rest of the conditions hold.`

// collNetFlushRule is G-COLLNET-FLUSH-1.
var collNetFlushRule = &Rule{
	ID: "G-COLLNET-FLUSH-1", Layer: LayerExec, Title: "CollNet receives flush GPU Direct RDMA writes (iflush or gdrcopy)",
	Doc: collNetFlushDoc,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/transport/coll_net.cc", Func: "recvSetup, recvProxyProgress, recvProxyConnect"},
	perOp: func(o *opRun) {
		d := o.dec
		if d.Err != nil || !d.Algo.IsCollNet() {
			o.emit(Verdict{Outcome: Skip, Why: "not a CollNet operation"})
			return
		}
		f := o.comm.CollNetFlush()
		facts := []Fact{F("gdr", f.Conns.GDR), F("needFlush", f.Conns.Flush)}
		switch {
		case !f.Conns.Set:
			o.emit(Verdict{Outcome: Skip, Why: "no CollNet connector modelled on this communicator"})
		case !f.Conns.Flush && !f.Conns.GDR:
			o.emit(Verdict{Outcome: Skip, Why: "a CollNet connector without GPU Direct RDMA: the NIC writes host memory, nothing to flush", Facts: facts})
		case !f.Conns.Flush:
			o.emit(Verdict{Outcome: Skip, Why: "GPU Direct RDMA receives that need no flush (ncclTopoNeedFlush: sm90+, NCCL_NET_FORCE_FLUSH 0, no C2C path)", Facts: facts})
		case f.GdrCopy.Fails:
			o.emit(Verdict{Outcome: Fail, Why: "every received CollNet step flushes: " + f.GdrCopy.Why + o.comm.gdcPinNote(f), Facts: facts})
		case f.GdrCopy.On:
			o.emit(Verdict{Outcome: Pass, Why: "every received CollNet step flushes: " + f.GdrCopy.Why + o.comm.gdcPinNote(f), Facts: facts})
		default:
			o.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("every received CollNet step flushes (%s) through the CollNet plugin's iflush before the kernel reads it (a registered task: one per maxCollBytes piece of the user buffer)", flushWords(f.Conns.Type)) + o.comm.gdcPinNote(f), Facts: facts})
		}
	},
}

// flushWords names ncclTopoNeedFlush's reason.
func flushWords(t topo.FlushType) string {
	if t == topo.FlushC2C {
		return "PCIe data with C2C completions"
	}
	return "below sm90 or NCCL_NET_FORCE_FLUSH"
}

// gdcPinNote says, for a C2C flush with gdrcopy at a release that pins
// its sync word over PCIe (Consts.GdcPinForcePCIe), that NCCL skips the
// flush with GDRCopy 2.5+, which gatesim cannot tell from the system.
//
// Ref: v2.30.3-1 src/include/graph.h ncclGdcPinFlag; src/transport/coll_net.cc
// recvProxyConnect (v2.30.7-1 likewise)
func (c *Comm) gdcPinNote(f CollNetFlush) string {
	if f.Conns.Type != topo.FlushC2C || !f.GdrCopy.Lib || !c.rs.Consts.GdcPinForcePCIe {
		return ""
	}
	if v, ok := c.Env.Lookup("NCCL_GDRCOPY_SYNC_ENABLE"); ok && paramIs(v, 0) {
		return ""
	}
	return "; with GDRCopy 2.5+ (gdr_pin_buffer_v2) NCCL would pin the sync word over PCIe and skip this flush, but the system does not say which GDRCopy libgdrapi.so is: gatesim takes it as older and keeps the flush"
}
