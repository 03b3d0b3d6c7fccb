package spec

import (
	"fmt"
	"strings"
)

// ncclDevCommDestroy (2.28.3+) runs at its call, not at ncclGroupEnd: it
// deregisters the device communicator's resource window and gives back
// what it holds of its communicator's GIN, per release
// (G-DEVCOMM-DESTROY-1). The GIN connection is never given back before
// the communicator is (devr->ginEnabled is not cleared), so a later
// ncclDevCommCreate on the communicator still gets GIN contexts, asked or
// not.

// DevCommRelease is what ncclDevCommDestroy gave back.
type DevCommRelease struct {
	// Of is the device communicator destroyed: the communicator's nth
	// ncclDevCommCreate, 1-based.
	Of int `json:"of"`
	// Signals and Counters went back to the communicator's pools from
	// SignalBase and CounterBase (2.28.7–2.29.7); Reset: zeroed first
	// (2.29.7).
	Signals     int64 `json:"signals,omitempty"`
	SignalBase  int64 `json:"signal_base,omitempty"`
	Counters    int64 `json:"counters,omitempty"`
	CounterBase int64 `json:"counter_base,omitempty"`
	Reset       bool  `json:"reset,omitempty"`
	// ContextsReturned went back to the connection's pool of exclusive
	// contexts; ContextsKept stay taken though no device communicator
	// uses them (2.29.7); ContextsDestroyed were its own (2.30.3+).
	ContextsReturned  int `json:"contexts_returned,omitempty"`
	ContextsKept      int `json:"contexts_kept,omitempty"`
	ContextsDestroyed int `json:"contexts_destroyed,omitempty"`
	// Undefined says why the call is undefined behaviour (the device
	// communicator is not live: never made, its create failed, or
	// destroyed already); nothing else is set then.
	Undefined string `json:"undefined,omitempty"`
}

// Cell is the release in a few words.
func (r *DevCommRelease) Cell() string {
	if r.Undefined != "" {
		return fmt.Sprintf("devComm %d not live: undefined", r.Of)
	}
	parts := []string{fmt.Sprintf("devComm %d destroyed", r.Of)}
	if r.Signals > 0 || r.Counters > 0 {
		s := fmt.Sprintf("%d signal(s), %d counter(s) freed", r.Signals, r.Counters)
		if r.Reset {
			s += " after a reset"
		}
		parts = append(parts, s)
	}
	if r.ContextsReturned > 0 {
		parts = append(parts, fmt.Sprintf("%d exclusive context(s) returned", r.ContextsReturned))
	}
	if r.ContextsKept > 0 {
		parts = append(parts, fmt.Sprintf("%d context(s) not returned", r.ContextsKept))
	}
	if r.ContextsDestroyed > 0 {
		parts = append(parts, fmt.Sprintf("%d context(s) destroyed", r.ContextsDestroyed))
	}
	return strings.Join(parts, ", ")
}

const destroyDoc283 = `ncclDevCommDestroy runs at its call (not deferred to ncclGroupEnd) and deregisters the device communicator's resource window (its LSA barriers); there is no GIN to give back.`

const destroyDoc287 = `ncclDevCommDestroy runs at its call and, where devr->ginEnabled, gives the device communicator's signals and counters (ginSignalCount: its own and its barriers') back to the communicator's pools (ncclGinFreeSignalsCounters); a later device communicator takes the lowest free range that fits (ncclSpaceAlloc, first fit), so it reuses them, with the values they were left holding (nothing resets them). The GIN connection and its contexts stay: devr->ginEnabled is never cleared, so every later device communicator still gets them, asked or not. Its resource window is deregistered.`

const destroyDoc297 = `ncclDevCommDestroy runs at its call and, where devr->ginEnabled, resets the device communicator's signals and counters to 0 on every context (ncclGinResetSignalsAndCounters, a kernel it waits for) and gives them back to the pools (first fit, as 2.28.7). Its contexts go back only when they are the most recently taken exclusive ones (ginContextBase equal to ctxLastExclusive: ctxLastExclusive grows by them); other exclusive contexts stay counted against the pool, and shared ones are never given back (ctxFirstAvailable is not lowered). The connection stays; its resource window is deregistered.`

const destroyDoc303 = `ncclDevCommDestroy runs at its call, deregisters the resource window and, for a device communicator with GIN contexts, destroys them on every connection (ncclGinDevCommFree): they were its own, so nothing another device communicator can take changes. The connection stays (devr->ginEnabled), and a later device communicator gets contexts of its own.`

const destroyNotLiveDoc = `NCCL keeps no list of live device communicators and checks nothing of the ncclDevComm it is given, so destroying one that is not live (destroyed already, never made, or whose ncclDevCommCreate failed) is undefined: a second destroy deregisters a freed resource window again (use after free) and, where the release frees GIN signals and counters, frees their ranges again (ncclSpaceFree's "No allocation found" WARN is unchecked, and a range reused meanwhile is another device communicator's); the call returns what that leaves, ncclSuccess when nothing crashes. gatesim answers such a call as undefined and changes nothing.`

// devCommDestroyRule is G-DEVCOMM-DESTROY-1 with its release's doc.
func devCommDestroyRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-DEVCOMM-DESTROY-1", Layer: LayerGroup, Title: "what ncclDevCommDestroy gives back, and what a later ncclDevCommCreate reuses",
		Doc: doc + " " + destroyNotLiveDoc, Ref: ref, onDemand: true,
		group: func(g *groupRun) { g.destroy.run(g) },
	}
}

// devCommDestroyRun is one ncclDevCommDestroy: the communicator, what its
// device communicators share, the one destroyed (nth, 1-based) and the
// call's error when there is no such live device communicator.
type devCommDestroyRun struct {
	c   *Comm
	st  *devCommState
	n   int
	err error
}

func (r *devCommDestroyRun) run(g *groupRun) {
	v, err := r.c.destroyDevComm(r.st, r.n, g.dec)
	if err != nil {
		r.err = err
		return
	}
	g.emit(v)
}

// destroyDevComm decides ncclDevCommDestroy of the communicator's nth
// device communicator on what its device communicators share (st),
// filling d; an error when there is no such live device communicator.
//
// Ref: v2.28.3-1 src/dev_runtime.cc ncclDevCommDestroy; v2.28.7-1 the
// same, src/gin/gin_host.cc ncclGinFreeSignalsCounters, src/allocator.cc
// ncclSpaceFree; v2.29.7-1 src/dev_runtime.cc ncclDevCommDestroy,
// src/device/common.cu ncclGinResetSignalsAndCounters; v2.30.3-1
// src/dev_runtime.cc ncclDevCommDestroy, src/gin/gin_host.cc
// ncclGinDevCommFree
func (c *Comm) destroyDevComm(st *devCommState, n int, d *Decision) (Verdict, error) {
	if n < 1 {
		return Verdict{}, fmt.Errorf("ncclDevCommDestroy of device communicator %d: expected N >= 1", n)
	}
	// NCCL keeps no list of live device communicators: ncclDevCommDestroy
	// trusts the ncclDevComm it is given, so one not live is undefined.
	var why string
	switch {
	case n > len(st.made):
		why = fmt.Sprintf("the communicator has made %d device communicator(s) before (ncclDevCommDestroy runs at its call; one of the same group is made only at ncclGroupEnd): the ncclDevComm passed was never filled by ncclDevCommCreate", len(st.made))
	case !st.made[n-1].made:
		why = "its ncclDevCommCreate failed: the ncclDevComm passed holds what the failure left"
	case st.made[n-1].destroyed:
		why = "destroyed already: ncclDevCommDestroy deregisters its resource window again (a window freed by the first destroy: use after free), gives its GIN signals and counters back to the pools again where the release does (unchecked ncclSpaceFree: a \"No allocation found\" WARN, or another device communicator's range freed once it was reused) and destroys its GIN contexts again where the release does"
	}
	if why != "" {
		d.DevCommRelease = &DevCommRelease{Of: n, Undefined: why}
		return Verdict{Outcome: Info, Why: fmt.Sprintf("device communicator %d is not live, and NCCL checks nothing: undefined behaviour: %s", n, why), Facts: []Fact{F("nth", n), F("made", len(st.made))}}, nil
	}
	rec := &st.made[n-1]
	rec.destroyed = true
	rel := &DevCommRelease{Of: n}
	d.DevCommRelease = rel
	facts := []Fact{F("nth", n), F("gin_enabled", st.ginEnabled)}
	why = fmt.Sprintf("device communicator %d: its resource window is deregistered", n)
	form := c.rs.Consts.DevCommForm
	switch {
	case form == devComm283:
		why += "; no GIN in this release"
	case !st.ginEnabled:
		why += "; GIN is not enabled on the communicator: nothing else to give back"
	case form <= devComm297:
		rel.Signals, rel.SignalBase, rel.Counters, rel.CounterBase = rec.sig, rec.sigBase, rec.ctr, rec.ctrBase
		rel.Reset = form == devComm297 && (rec.sig > 0 || rec.ctr > 0)
		if rec.sig > 0 {
			st.signals.free(rec.sigBase, rec.sig)
		}
		if rec.ctr > 0 {
			st.counters.free(rec.ctrBase, rec.ctr)
		}
		facts = append(facts, F("signals", rec.sig), F("signal_base", rec.sigBase), F("counters", rec.ctr), F("counter_base", rec.ctrBase))
		switch {
		case rec.sig == 0 && rec.ctr == 0:
			why += "; it held no signal or counter"
		case form == devComm297:
			why += fmt.Sprintf("; signals %d..%d and counters %d..%d are reset to 0 and go back to the pools (ncclGinResetSignalsAndCounters, ncclGinFreeSignalsCounters): a later device communicator takes the lowest free range that fits", rec.sigBase, rec.sigBase+rec.sig, rec.ctrBase, rec.ctrBase+rec.ctr)
		default:
			why += fmt.Sprintf("; signals %d..%d and counters %d..%d go back to the pools (ncclGinFreeSignalsCounters), not reset: a later device communicator takes the lowest free range that fits, with the values they hold", rec.sigBase, rec.sigBase+rec.sig, rec.ctrBase, rec.ctrBase+rec.ctr)
		}
		if form == devComm297 {
			facts = append(facts, F("context_base", rec.ctxBase), F("contexts", rec.ctx), F("ctx_last_exclusive", st.ctxLastExcl))
			switch {
			case rec.ctx == 0:
			case rec.ctxBase == st.ctxLastExcl:
				st.ctxLastExcl += rec.ctx
				rel.ContextsReturned = rec.ctx
				why += fmt.Sprintf("; its %d exclusive context(s) were the last taken (base %d = ctxLastExclusive): they go back, %d now left for exclusive use", rec.ctx, rec.ctxBase, st.ctxLastExcl-st.ctxFirst)
			case rec.exclusive:
				rel.ContextsKept = rec.ctx
				why += fmt.Sprintf("; its %d exclusive context(s) from base %d stay taken: only the most recently taken exclusive contexts (base %d) go back", rec.ctx, rec.ctxBase, st.ctxLastExcl)
			default:
				rel.ContextsKept = rec.ctx
				why += fmt.Sprintf("; its %d shared context(s) are not given back (ctxFirstAvailable stays %d)", rec.ctx, st.ctxFirst)
			}
		}
		why += "; the GIN connection stays"
	default:
		if rec.ctx > 0 {
			rel.ContextsDestroyed = rec.ctx
			why += fmt.Sprintf("; its %d GIN context(s) are destroyed (ncclGinDevCommFree destroys its context object on each of the %d connection(s)): they were its own, so no limit another device communicator meets changes", rec.ctx, st.conns)
		}
		why += "; the GIN connection stays"
	}
	return Verdict{Outcome: Pass, Why: why, Facts: facts}, nil
}

const strongSignalsWarn = "GIN strong signals are required, but the GIN plugin does not support them."
const vaSignalsWarn = "GIN VA signals are required, but the GIN plugin does not support them."

const signalDoc307 = `2.30.7: ncclDevCommRequirements_t gains ginStrongSignalsRequired and ginVaSignalsRequired, both true in NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER. ncclGinDevCommSetup, for every device communicator with GIN, refuses a kind the assigned GIN does not support ("GIN strong signals are required, but the GIN plugin does not support them.", then the same for VA signals; ncclInvalidUsage), as getGinProperties told ncclGinPluginAssignToComm: the internal GDAKI GIN, the GIN proxy over RMA and the v13 adapter report both, so only an external v14 plugin can refuse (and then every device communicator with GIN that keeps the initializer's defaults fails). The device communicator's legacy signals (those by index) are strong exactly when ginStrongSignalsRequired is set (devComm->ginStrongLegacySignals; the proxy's GFD carries the bit). Before 2.30.7 no host code reads a signal kind: VA signals exist in the device API from 2.29.7 and both GINs carry them, and every proxy signal is strong.`

// devCommSignalRule is G-DEVCOMM-SIGNAL-1 (2.30.7+).
func devCommSignalRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-DEVCOMM-SIGNAL-1", Layer: LayerGroup, Title: "GIN strong and VA signals a device communicator requires of the GIN plugin",
		Doc: signalDoc307, Ref: ref, onDemand: true, Logs: []string{strongSignalsWarn, vaSignalsWarn},
		group: func(g *groupRun) { g.devComm.signals(g) },
	}
}

// signals is G-DEVCOMM-SIGNAL-1: the signal kinds the requirements ask
// against the assigned GIN's, before the contexts are made.
//
// Ref: v2.30.7-1 src/gin/gin_host.cc ncclGinDevCommSetup,
// src/plugin/gin.cc ncclGinPluginAssignToComm, src/plugin/gin/gin_v13.cc
// ncclGin_getGinProperties
func (r *devCommRun) signals(g *groupRun) {
	gin := r.c.gin
	strong, va := r.reqs.signalsRequired()
	facts := []Fact{F("ginStrongSignalsRequired", strong), F("ginVaSignalsRequired", va), F("gin", gin.Name),
		F("supports_strong_signals", !gin.NoStrongSignals), F("supports_va_signals", !gin.NoVASignals)}
	switch {
	case strong && gin.NoStrongSignals:
		r.fail(g, InvalidUsage, strongSignalsWarn, fmt.Sprintf("strong signals required and the GIN plugin %s (v%d) reports none (getGinProperties)", gin.Name, gin.ABI), facts...)
		return
	case va && gin.NoVASignals:
		r.fail(g, InvalidUsage, vaSignalsWarn, fmt.Sprintf("VA signals required and the GIN plugin %s (v%d) reports none (getGinProperties)", gin.Name, gin.ABI), facts...)
		return
	}
	r.res.StrongSignals = strong
	why := "the legacy signals are weak (ginStrongSignalsRequired=0)"
	if strong {
		why = "the legacy signals are strong (ginStrongSignalsRequired)"
	}
	g.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("%s supports what is required: %s", gin.Name, why), Facts: facts})
}
