package spec

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
	Ref:      Ref{Tag: "v2.30.3-1", File: "src/dev_runtime.cc", Func: "ncclDevrWindowRegisterInGroup"},
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
			return opArgErr(i, ArgAlloc, "a window in host memory (alloc cumem-host) is not modelled before NCCL 2.30.3 (this is %s); expected alloc cumem", c.rs.Version)
		case c.Model.In.MNNVL:
			return opArgErr(i, ArgAlloc, "a window in host memory on an MNNVL communicator is not modelled (a device attribute decides); expected alloc cumem")
		case launch.Mode == LaunchGraph:
			return opArgErr(i, ArgAlloc, "a window in host memory under CUDA graph capture is not modelled; expected launch stream")
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

// Windows over several cuMem segments (a virtual range mapped from
// several physical allocations side by side): 2.29.2–2.29.7
// ncclDevrWindowRegisterInGroup counts the segments behind the buffer
// (ncclCuMemGetAddressRange) and refuses more than one; from 2.30.3
// symMemoryObtain maps every segment for the LSA peers, and only
// ncclPutSignal refuses such a window (G-RMA-OP-1).

const winSegWarn = "Window registration of addresses that span multiple physical segments is currently not supported."

// winSegRule is G-WIN-SEG-1 in its release's form (Consts.WinSegments).
func winSegRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-WIN-SEG-1", Layer: LayerGroup, Title: "windows over several cuMem segments",
		Doc:      `ncclCommWindowRegister on memory whose virtual range is mapped from several physical cuMem allocations (alloc cumem-segments). 2.29.2–2.29.7: without symmetric support the call returns ncclSuccess and makes no window; with it ncclDevrWindowRegisterInGroup counts the segments behind the buffer and WARNs "Window registration of addresses that span multiple physical segments is currently not supported.", ncclInvalidArgument (so a put from it finds no symmetric window). From 2.30.3 every segment is exported and mapped for the LSA peers and the window serves the collectives as a one-segment window does (copy engines and symmetric kernels included); ncclPutSignal refuses it ("does not support VAs backed by multiple physical cuMem segments", G-RMA-OP-1). Not modelled: releases before 2.29.2 (2.27.x finds the buffer beyond its first segment, WARNs "does not satisfy symmetric registration requirements" and returns ncclSuccess with no window; 2.28.x maps the first segment alone, unchecked), and from 2.30.3 the GIN registration across nodes, which wants DMA-BUF on every GIN connection.`,
		Ref:      ref,
		Logs:     []string{winSegWarn},
		onDemand: true,
		group: func(g *groupRun) {
			switch {
			case g.winSegForm == 2:
				g.emit(Verdict{Outcome: Pass, Why: "window over several cuMem segments registered: every segment mapped for the LSA peers; the collective decides as on a one-segment window"})
			case !g.winSegSym:
				g.emit(Verdict{Outcome: Pass, Why: "no symmetric support: ncclCommWindowRegister returns ncclSuccess before it looks at the segments, and makes no window"})
			default:
				g.dec.Err = &NCCLError{Result: InvalidArgument, Message: winSegWarn, Call: "ncclCommWindowRegister"}
				g.emit(Verdict{Outcome: Fail, Why: "ncclCommWindowRegister refuses a buffer spanning several cuMem segments (ncclInvalidArgument)", Log: []string{winSegWarn}})
			}
		},
	}
}

// checkSegmentWindows refuses windows over several cuMem segments where
// gatesim does not model them (Consts.WinSegments 0: before 2.29.2).
func (c *Comm) checkSegmentWindows(all []GroupOp) error {
	for i, g := range all {
		if g.Alloc == AllocCuMemSegments && g.RMA == nil && c.rs.Consts.WinSegments == 0 {
			return opArgErr(i, ArgAlloc, "a window over several cuMem segments (alloc cumem-segments) is not modelled before NCCL 2.29.2 (this is %s); expected alloc cumem", c.rs.Version)
		}
	}
	return nil
}

// segmentWindow runs G-WIN-SEG-1 for a collective on a window over several
// cuMem segments and appends its verdict.
func (c *Comm) segmentWindow(op GroupOp, d *Decision, tr Trace) Trace {
	r, ok := c.rs.rules["G-WIN-SEG-1"]
	if !ok {
		return tr
	}
	gr := &groupRun{op: op, dec: d, winSegForm: c.rs.Consts.WinSegments, winSegSym: c.Model.In.SymmetricSupport}
	r.group(gr)
	if d.Err != nil {
		d.DecidedBy, d.Algo, d.Proto, d.NChannels, d.Kernel = r.ID, AlgoNone, ProtoNone, 0, ""
		d.ChannelLo, d.ChannelHi, d.NThreads, d.TimeUs, d.Plan = 0, 0, 0, 0, -1
	}
	for _, v := range gr.out {
		v.Rule, v.Layer, v.Ref, v.Scope = r.ID, r.Layer, &r.Ref, "op"
		tr = append(tr, v)
	}
	return tr
}
