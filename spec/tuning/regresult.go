package tuning

import (
	"slices"
	"strings"
)

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
// same "IPC register buffer" line) and each call that failed and prints
// its failure line at the release (RegFailed less RegSilent). A
// registration NCCL never called (RegRefused alone), or one that fails
// silently (2.23.4's IPC export), prints no line.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollBuffers;
// src/transport/p2p.cc ipcRegisterBuffer; src/transport/coll_net.cc
// collnetRegisterBuffer (G-REG-IPC-1, G-REG-COLLNET-IPC-1, G-REG-UB-1,
// G-REG-SKIP-1)
func (ch *OpChoice) RegResults() []RegResult {
	var out []RegResult
	for _, w := range []string{ch.Registered, ch.RegPeers} {
		if k := ChunkRegOf(w); k != ChunkRegNone {
			out = append(out, RegResult{Kind: k})
		}
	}
	for _, w := range regList(ch.RegFailed) {
		if k := ChunkRegOf(w); k != ChunkRegNone && !ch.RegFailedSilently(w) {
			out = append(out, RegResult{Kind: k, Failed: true})
		}
	}
	return out
}

// RegCallFailed says whether NCCL called the registration of kind for
// the task and it failed (RegFailed names it).
func (ch *OpChoice) RegCallFailed(kind string) bool {
	return slices.Contains(regList(ch.RegFailed), kind)
}

// RegFailedSilently says whether the registration of kind failed without
// a line at the release (RegSilent names it).
func (ch *OpChoice) RegFailedSilently(kind string) bool {
	return slices.Contains(regList(ch.RegSilent), kind)
}

// regList splits a "+"-joined list of registrations.
func regList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "+")
}
