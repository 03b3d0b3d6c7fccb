package tuning

// RegResult is one registration of an operation's buffers as NCCL's REG
// lines show it: the path (info->regBufType's kind) and whether NCCL's
// call on that path failed. The model's choice (OpChoice.RegResults) and
// the log reader's line (ncclog.RegOutcome.Result) are compared on it;
// channels are not part of it, for no REG line names them.
type RegResult struct {
	Kind   ChunkReg
	Failed bool
}

// RegResults are the registrations whose lines the choice's task prints:
// the one it registered with (Registered), its peers' IPC registration
// beside CollNetDirect's (RegPeers: ncclIpcLocalRegisterBuffer prints the
// same "IPC register buffer" line) and the call that failed (RegFailed).
// A registration NCCL never called (RegRefused alone) prints no line.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollBuffers;
// src/transport/p2p.cc ipcRegisterBuffer (G-REG-IPC-1,
// G-REG-COLLNET-IPC-1, G-REG-UB-1)
func (ch *OpChoice) RegResults() []RegResult {
	var out []RegResult
	for _, r := range []struct {
		word   string
		failed bool
	}{{ch.Registered, false}, {ch.RegPeers, false}, {ch.RegFailed, true}} {
		if k := ChunkRegOf(r.word); k != ChunkRegNone {
			out = append(out, RegResult{Kind: k, Failed: r.failed})
		}
	}
	return out
}
