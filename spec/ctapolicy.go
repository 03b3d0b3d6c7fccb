package spec

import (
	"fmt"

	"github.com/gatesim/gatesim/spec/tuning"
)

// ctaPolicyGroupVerdict is G-SEL-CTAPOL-1 for a group's operation under
// CTA policy EFFICIENCY, once the group's plan says which path took it.
// NCCL reads the policy in getAlgoInfo only, after the cost table and only
// without a tuner, so: a task the copy engines take (taskAppend,
// ceCollTaskAppend) or a symmetric kernel takes without a cost-table
// probe never meets it (skip); ncclMakeSymmetricTaskList's probe of an LL
// kernel's head task (2.29.2+) is an ncclGetAlgoInfo and reads it; a task
// the cost table decides passes when the policy moved it to NVLS/Simple
// and fails with the first condition that kept it on its pick. ok is false
// where the verdict ctaPolicyAlone gave stands (another policy, another
// function).
//
// Ref: v2.28.9-1 src/enqueue.cc getAlgoInfo, taskAppend; v2.29.2-1
// src/enqueue.cc ncclGetAlgoInfo; src/scheduler/symmetric_sched.cc
// ncclMakeSymmetricTaskList (v2.30.7-1 likewise)
func (c *Comm) ctaPolicyGroupVerdict(op GroupOp, call tuning.Call, ch *tuning.OpChoice) (Verdict, bool) {
	m := c.Model
	if m == nil {
		return Verdict{}, false
	}
	pol := m.CTAPolicyCheck(call, tuning.CTAPolicyPickKept)
	switch pol.Cond {
	case tuning.CTAPolicyNoRelease, tuning.CTAPolicyNotEfficient, tuning.CTAPolicyFunc:
		return Verdict{}, false
	}
	skip := func(why string) (Verdict, bool) {
		return Verdict{Outcome: Skip, Why: why, Facts: c.ctaPolicy}, true
	}
	fail := func(why string) (Verdict, bool) {
		return Verdict{Outcome: Fail, Why: why, Facts: c.ctaPolicy}, true
	}
	switch {
	case ch.SidePath == "copy-engine" || ch.SidePath == "hierarchical-ce":
		return skip("CTA policy EFFICIENCY, but the copy engines took the operation in taskAppend, before the cost table: getAlgoInfo, where the policy acts, is not called for it")
	case ch.SidePath == "symmetric" && ch.SymProbeNBytes == 0:
		return skip(fmt.Sprintf("CTA policy EFFICIENCY, but symmetric kernel %s took the operation in ncclMakeSymmetricTaskList, before the cost table: getAlgoInfo, where the policy acts, is not called for it", sideKernel(ch)))
	case (ch.SidePath == "" || ch.SidePath == "symmetric") && pol.Cond == tuning.CTAPolicyTuner:
		// the symmetric kernels' LL probe is an ncclGetAlgoInfo too: a tuner answers it
		return skip(pol.Why)
	case ch.SidePath == "symmetric" && ch.SymProbeCTAPolicy:
		return fail(fmt.Sprintf("ncclMakeSymmetricTaskList's probe of the LL kernel (ncclGetAlgoInfo on the piece's head task) took the override's NVLS/Simple, but NCCL keeps symmetric kernel %s whatever the probe says here (NCCL_SYM_KERNEL forced it, or the release keeps LL kernels on windows)", sideKernel(ch)))
	case ch.SidePath == "symmetric":
		return fail(fmt.Sprintf("ncclMakeSymmetricTaskList's probe of the LL kernel (ncclGetAlgoInfo on the piece's head task) reads the policy, but the override does not apply: %s; symmetric kernel %s stays", pol.Why, sideKernel(ch)))
	case ch.SidePath != "":
		return Verdict{}, false
	case ch.DecidedBy == tuning.RuleCTAPolicy:
		return Verdict{Outcome: Pass, Why: fmt.Sprintf("CTA policy EFFICIENCY with registered buffers (%s): NVLS/Simple on the %d channels its registered NVLS resources need", op.Buffers, ch.NChannels), Facts: c.ctaPolicy}, true
	}
	return fail("CTA policy EFFICIENCY, but the override does not apply: " + pol.Why)
}

// sideKernel names a symmetric task's kernel, or says it failed.
func sideKernel(ch *tuning.OpChoice) string {
	if ch.Kernel == "" {
		return "(none: the piece failed)"
	}
	return ch.Kernel
}
