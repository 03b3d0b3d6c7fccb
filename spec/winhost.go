package spec

import "fmt"

// Windows in host memory (2.30.3+): ncclCommWindowRegister takes cuMem
// memory whose physical segments are on the host (alloc cumem-host) when
// NCCL_ELASTIC_BUFFER_REGISTER is on (default 1). Such a window is bound
// to no multicast object, ncclCommRegister skips its registration, and a
// collective on it takes neither the copy engines nor a symmetric kernel:
// the cost table decides it as on unregistered buffers (windowed).

// winHostRule is G-WIN-HOST-1.
var winHostRule = &Rule{
	ID: "G-WIN-HOST-1", Layer: LayerGroup, Title: "windows in host memory",
	Doc:      `From 2.30.3 ncclCommWindowRegister accepts memory with host (CPU-backed) cuMem segments unless NCCL_ELASTIC_BUFFER_REGISTER=0 (default 1), which fails it with ncclInvalidArgument. The window binds no multicast memory, ncclCommRegister skips its registration ("contains segments backed by CPU memory"), and taskAppend and ncclMakeSymmetricTaskList send a collective on it to the cost table: no copy-engine collective, no symmetric kernel. ncclPutSignal refuses it (G-RMA-OP-1). gatesim does not model host memory in windows before 2.30.3, on MNNVL (a device attribute decides), under CUDA graph capture, nor outside windows.`,
	Ref:      Ref{Tag: "v2.30.3-1", File: "src/dev_runtime.cc", Func: "ncclDevrWindowRegister"},
	Logs:     []string{"VA represented by {userPtr = %p, size = %zu} contains CPU-backed physical segments, but NCCL_ELASTIC_BUFFER_REGISTER is set to 0. Please set NCCL_ELASTIC_BUFFER_REGISTER=1 and retry window registration"},
	onDemand: true,
	group: func(g *groupRun) {
		if p := g.winHostElastic; p != nil && *p == 0 {
			w := "VA represented by {userPtr = %p, size = %zu} contains CPU-backed physical segments, but NCCL_ELASTIC_BUFFER_REGISTER is set to 0. Please set NCCL_ELASTIC_BUFFER_REGISTER=1 and retry window registration"
			g.dec.Err = &NCCLError{Result: InvalidArgument, Message: w, Call: "ncclCommWindowRegister"}
			g.emit(Verdict{Outcome: Fail, Why: "NCCL_ELASTIC_BUFFER_REGISTER=0: ncclCommWindowRegister refuses memory with host segments", Facts: []Fact{F("NCCL_ELASTIC_BUFFER_REGISTER", "0")}, Log: []string{w}})
			return
		}
		g.emit(Verdict{Outcome: Pass, Why: "window with host-memory segments registered (no multicast binding, no ncclCommRegister registration): no copy engines, no symmetric kernel"})
	},
}

// checkHostWindows refuses windows in host memory where gatesim does not
// model them: a release before 2.30.3 (Consts WinSysmem), an MNNVL
// communicator (CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED
// decides) and CUDA graph capture (its registration of host memory).
func (c *Comm) checkHostWindows(all []GroupOp, launch Launch) error {
	for i, g := range all {
		if g.Alloc != AllocCuMemHost {
			continue
		}
		switch {
		case c.Model == nil:
		case !c.Model.Tuning.WinSysmem:
			return fmt.Errorf("group op %d: a window in host memory (alloc cumem-host) is not modelled before NCCL 2.30.3 (this is %s); expected alloc cumem", i, c.rs.Version)
		case c.Model.In.MNNVL:
			return fmt.Errorf("group op %d: a window in host memory on an MNNVL communicator is not modelled (a device attribute decides); expected alloc cumem", i)
		case launch.Mode == LaunchGraph:
			return fmt.Errorf("group op %d: a window in host memory under CUDA graph capture is not modelled; expected launch stream", i)
		}
	}
	return nil
}

// hostWindow runs G-WIN-HOST-1 for a collective on a window in host
// memory and appends its verdict.
func (c *Comm) hostWindow(op GroupOp, d *Decision, tr Trace) Trace {
	r, ok := c.rs.rules[winHostRule.ID]
	if !ok {
		return tr
	}
	gr := &groupRun{op: op, dec: d, winHostElastic: c.Model.In.ElasticBufferRegister}
	r.group(gr)
	if d.Err != nil {
		d.DecidedBy, d.Algo, d.Proto, d.NChannels, d.Kernel = r.ID, AlgoNone, ProtoNone, 0, ""
	}
	for _, v := range gr.out {
		v.Rule, v.Layer, v.Ref, v.Scope = r.ID, r.Layer, &r.Ref, "op"
		tr = append(tr, v)
	}
	return tr
}
