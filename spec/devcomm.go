package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Device communicators (2.28.3+): ncclDevCommCreate builds the device-side
// communicator a user's kernel takes, from an ncclDevCommRequirements_t:
// LSA barriers, multimem on the LSA team and, from 2.28.7, GIN contexts,
// signals, counters and barriers across nodes. The call itself checks
// symmetric support; the rest runs in ncclDevrCommCreateInternal at the
// group's end, so a failure there is the call's outside a group and
// ncclGroupEnd's inside one (as a one-sided call's).

// GinConnNone, GinConnFull and GinConnRail are ncclGinConnectionType_t
// (2.29.7+): no GIN, every rank, or each rank's rail team.
const (
	GinConnNone = "none"
	GinConnFull = "full"
	GinConnRail = "rail"
)

// DevCommReqs is the ncclDevCommRequirements_t a user passes, as
// NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER leaves it but for the fields set.
// A release's struct lacks the fields of later ones; setting one is
// refused (checkDevComm).
type DevCommReqs struct {
	LSAMultimem     bool `json:"lsaMultimem,omitempty"`
	LSABarrierCount int  `json:"lsaBarrierCount,omitempty"`
	// 2.28.7+
	BarrierCount        int  `json:"barrierCount,omitempty"`
	RailGinBarrierCount int  `json:"railGinBarrierCount,omitempty"`
	GinForceEnable      bool `json:"ginForceEnable,omitempty"`
	// GinContextCount is the contexts asked for (the initializer's 4
	// when nil).
	GinContextCount *int `json:"ginContextCount,omitempty"`
	GinSignalCount  int  `json:"ginSignalCount,omitempty"`
	GinCounterCount int  `json:"ginCounterCount,omitempty"`
	// 2.29.7+: GinConnectionType "none" (""), "full" or "rail".
	GinConnectionType    string `json:"ginConnectionType,omitempty"`
	GinExclusiveContexts bool   `json:"ginExclusiveContexts,omitempty"`
	GinQueueDepth        int    `json:"ginQueueDepth,omitempty"`
	// 2.30.3+
	WorldGinBarrierCount int `json:"worldGinBarrierCount,omitempty"`
	// 2.30.7+: GinStrongSignalsRequired and GinVaSignalsRequired (nil:
	// the initializer's true).
	GinStrongSignalsRequired *bool `json:"ginStrongSignalsRequired,omitempty"`
	GinVaSignalsRequired     *bool `json:"ginVaSignalsRequired,omitempty"`
}

// signalsRequired is ginStrongSignalsRequired and ginVaSignalsRequired
// as NCCL reads them.
func (q *DevCommReqs) signalsRequired() (strong, va bool) {
	strong, va = true, true
	if q.GinStrongSignalsRequired != nil {
		strong = *q.GinStrongSignalsRequired
	}
	if q.GinVaSignalsRequired != nil {
		va = *q.GinVaSignalsRequired
	}
	return strong, va
}

// MaxDevCommCount bounds each count of a requirement (NCCL takes any int;
// every input has a limit).
const MaxDevCommCount = 1 << 20

// devCommForm is what a release's ncclDevCommCreate reads and checks
// (Consts.DevCommForm; 0 before 2.28.3).
type devCommForm int

const (
	// devComm283 (2.28.3): symmetric support, LSA barriers, multimem.
	devComm283 devCommForm = iota + 1
	// devComm287 (2.28.7–2.28.9): GIN connects when asked (force, signals
	// or counters), min(4, NCCL_GIN_NCONTEXTS) contexts.
	devComm287
	// devComm292 (2.29.2–2.29.3): GIN only where comm->ginSupport.
	devComm292
	// devComm297 (2.29.7): connection types, exclusive contexts,
	// NCCL_GIN_NCONNECTIONS.
	devComm297
	// devComm303 (2.30.3–2.30.4): contexts per devComm (ncclGinDevCommSetup),
	// NCCL_GIN_NCONTEXTS and NCCL_GIN_EXCLUSIVE_CONTEXTS gone, world GIN
	// barriers.
	devComm303
	// devComm307 (2.30.7+): no world GIN barrier on a rail connection.
	devComm307
)

// ginDefaultContexts is NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER's
// ginContextCount and NCCL_GIN_MAX_CONTEXTS / NCCL_GIN_MAX_CONNECTIONS.
const ginDefaultContexts = 4

func (q *DevCommReqs) contexts() int {
	if q.GinContextCount == nil {
		return ginDefaultContexts
	}
	return *q.GinContextCount
}

// check refuses a field the release's struct lacks and bounds the rest.
func (q *DevCommReqs) check(form devCommForm) error {
	counts := map[string]int{"lsaBarrierCount": q.LSABarrierCount, "barrierCount": q.BarrierCount, "railGinBarrierCount": q.RailGinBarrierCount,
		"ginContextCount": q.contexts(), "ginSignalCount": q.GinSignalCount, "ginCounterCount": q.GinCounterCount, "ginQueueDepth": q.GinQueueDepth,
		"worldGinBarrierCount": q.WorldGinBarrierCount}
	for _, n := range []string{"lsaBarrierCount", "barrierCount", "railGinBarrierCount", "ginContextCount", "ginSignalCount", "ginCounterCount", "ginQueueDepth", "worldGinBarrierCount"} {
		if v := counts[n]; v < -MaxDevCommCount || v > MaxDevCommCount {
			return fmt.Errorf("ncclDevCommRequirements %s=%d: expected |value| <= %d", n, v, MaxDevCommCount)
		}
	}
	switch q.GinConnectionType {
	case "", GinConnNone, GinConnFull, GinConnRail:
	default:
		return fmt.Errorf("ncclDevCommRequirements ginConnectionType %q: expected none, full or rail", q.GinConnectionType)
	}
	since := func(f devCommForm, set bool, name, rel string) error {
		if set && form < f {
			return fmt.Errorf("ncclDevCommRequirements %s: this release's struct has no such field (it appears in %s)", name, rel)
		}
		return nil
	}
	for _, e := range []error{
		since(devComm287, q.BarrierCount != 0, "barrierCount", "2.28.7"),
		since(devComm287, q.RailGinBarrierCount != 0, "railGinBarrierCount", "2.28.7"),
		since(devComm287, q.GinForceEnable, "ginForceEnable", "2.28.7"),
		since(devComm287, q.GinContextCount != nil, "ginContextCount", "2.28.7"),
		since(devComm287, q.GinSignalCount != 0, "ginSignalCount", "2.28.7"),
		since(devComm287, q.GinCounterCount != 0, "ginCounterCount", "2.28.7"),
		since(devComm297, q.GinConnectionType != "", "ginConnectionType", "2.29.7"),
		since(devComm297, q.GinExclusiveContexts, "ginExclusiveContexts", "2.29.7"),
		since(devComm297, q.GinQueueDepth != 0, "ginQueueDepth", "2.29.7"),
		since(devComm303, q.WorldGinBarrierCount != 0, "worldGinBarrierCount", "2.30.3"),
		since(devComm307, q.GinStrongSignalsRequired != nil, "ginStrongSignalsRequired", "2.30.7"),
		since(devComm307, q.GinVaSignalsRequired != nil, "ginVaSignalsRequired", "2.30.7"),
	} {
		if e != nil {
			return e
		}
	}
	return nil
}

// DevCommResult is the device communicator NCCL builds: its GIN
// connection ("none", "full" or "rail"), GIN connections and contexts
// (ncclGinConnectOnce; Contexts is devComm.ginContextCount, Exclusive
// whether they are the devComm's alone), and the LSA multimem team.
type DevCommResult struct {
	GIN         string `json:"gin"`
	Connections int    `json:"connections,omitempty"`
	Contexts    int    `json:"contexts,omitempty"`
	// ContextsPerConnection is the contexts each GIN connection makes.
	ContextsPerConnection int  `json:"contexts_per_connection,omitempty"`
	Exclusive             bool `json:"exclusive,omitempty"`
	// Railed: the contexts address the rail team on a FULL connection
	// (2.29.7 and 2.30.7: RAIL asked; 2.30.3–2.30.4 only on a RAIL
	// connection).
	Railed   bool `json:"railed,omitempty"`
	Multimem bool `json:"multimem,omitempty"`
	// QueueDepth is the GDAKI contexts' send-queue depth, ProxyQueue the
	// proxy's queue per peer (G-DEVCOMM-QUEUE-1); 0 where gatesim does not
	// know an external plugin's.
	QueueDepth int `json:"queue_depth,omitempty"`
	ProxyQueue int `json:"proxy_queue,omitempty"`
	// Reused: the GIN connection is an earlier device communicator's of
	// the communicator (G-DEVCOMM-SHARE-1).
	Reused bool `json:"reused,omitempty"`
	// StrongSignals: its legacy signals are strong
	// (devComm->ginStrongLegacySignals, G-DEVCOMM-SIGNAL-1, 2.30.7+).
	StrongSignals bool `json:"strong_signals,omitempty"`
}

// Cell is the result in a few words.
func (r *DevCommResult) Cell() string {
	s := "devComm: GIN " + r.GIN
	if r.GIN != GinConnNone {
		s += fmt.Sprintf(", %d connection(s), %d context(s)", r.Connections, r.Contexts)
		if r.Exclusive {
			s += " exclusive"
		}
		if r.Railed && r.GIN == GinConnFull {
			s += " on the rail team"
		}
		switch {
		case r.QueueDepth > 0:
			s += fmt.Sprintf(", GDAKI queues of %d", r.QueueDepth)
		case r.ProxyQueue > 0:
			s += fmt.Sprintf(", proxy queues of %d", r.ProxyQueue)
		}
		if r.Reused {
			s += ", connection reused"
		}
	}
	if r.Multimem {
		s += ", LSA multimem"
	}
	return s
}

// devCommRun is what G-DEVCOMM-1 reads of the communicator, what its
// device communicators share (st), and the call being built.
type devCommRun struct {
	c    *Comm
	reqs *DevCommReqs
	st   *devCommState
	form devCommForm
	// conn is the connection asked (none, full or rail); res the result
	// being built; at and rule the step a sub-rule runs at.
	conn string
	res  *DevCommResult
	at   devCommStep
	rule RuleID
	// poolLogs are the pools' lines of the connecting call.
	poolLogs []string
	// exclusive: the contexts are taken for this device communicator alone
	// (2.29.7)
	exclusive bool
	// rec is this device communicator's record in st.made.
	rec *devCommRecord
}

func (r *devCommRun) param(name string, def int64) int64 {
	v, _, _ := intParam(r.c.Env, name, def)
	return v
}

// refuse fails the call with NCCL's WARN (a WARN-less failure passes "").
func (r *devCommRun) refuse(g *groupRun, res Result, warn, why string, facts ...Fact) {
	g.dec.Err = &NCCLError{Result: res, Message: warn, Call: "ncclDevCommCreate"}
	v := Verdict{Outcome: Fail, Why: "ncclDevCommCreate fails with " + res.String() + ": " + why, Facts: facts}
	if warn != "" {
		v.Log = []string{warn}
	}
	g.emit(v)
}

const devCommDoc = `ncclDevCommCreate (2.28.3+) builds a device communicator from ncclDevCommRequirements_t. Without comm->symmetricSupport it WARNs "Communicator does not support symmetric memory!" and returns ncclInvalidUsage. At the group's end ncclDevrCommCreateInternal obtains the LSA team, with multimem when lsaMultimem is set: without NVLS support "Multicast support requested for team but none available on system." and ncclInvalidArgument; the LSA barriers (max of barrierCount and lsaBarrierCount from 2.28.7) live in its resource window.`

const devCommDoc287 = devCommDoc + ` 2.28.7–2.28.9: ginForceEnable, a signal or a counter asks GIN (and a communicator of several nodes would, but symmetric memory is one node): ncclGinConnectOnce without a GIN object WARNs "GIN not supported." (ncclInvalidUsage), with NCCL_GIN_ENABLE=0 "GIN is disabled." (ncclInternalError); it makes min(NCCL_GIN_MAX_CONTEXTS 4, NCCL_GIN_NCONTEXTS (default 4)) GIN contexts, each its own connection.`

const devCommDoc292 = devCommDoc287 + ` 2.29.2–2.29.3: GIN is asked only by ginForceEnable or positive signal or counter counts, and connects only where comm->ginSupport (a GIN object, NCCL_CROSS_NIC not 0, no fused NIC); otherwise the device communicator has no GIN, without a WARN.`

const devCommDoc297 = devCommDoc292 + ` 2.29.7: ginConnectionType asks GIN (ginForceEnable means FULL, with two INFO lines); GIN resources (signals, counters, barrierCount, railGinBarrierCount) with NONE WARN "User requested GIN resources but did not request GIN to be enabled!", a request where comm->globalGinSupport is NONE "User requested GIN but not all ranks in the communicator support GIN", FULL where it is RAIL (NCCL_CROSS_NIC=0) "...supports only NCCL_GIN_CONNECTION_RAIL", each ncclInvalidArgument. ncclGinConnectOnce (NCCL_GIN_ENABLE=0: "GIN is disabled.") makes as many connections as the rank has local GIN devices (a v11 plugin: the contexts asked, or NCCL_GIN_NCONTEXTS), NCCL_GIN_NCONNECTIONS overriding, at most 4, and NCCL_GIN_NCONTEXTS (unset: max(ginContextCount, 4)) contexts rounded up to a multiple of the connections (v11: one per connection); exclusive contexts (ginExclusiveContexts, or NCCL_GIN_EXCLUSIVE_CONTEXTS) beyond them WARN "Requested number of exclusive GIN contexts (%d) exceeds the unallocated count (%d)...", shared ones are capped at them (INFO "Capping the number of GIN contexts"), and none asked WARNs "No shared contexts are available (%d requested)..." (ncclInvalidArgument).`

const devCommDoc303 = devCommDoc297 + ` 2.30.3: NCCL_GIN_NCONTEXTS and NCCL_GIN_EXCLUSIVE_CONTEXTS are gone; the connections are the local GIN devices (a plugin below v13: 4), NCCL_GIN_NCONNECTIONS overriding, at most 4, and each device communicator gets the contexts it asks (below v13: one per connection), rounded up to a multiple of the connections (ncclGinDevCommSetup). worldGinBarrierCount counts as a GIN resource.`

const devCommDoc307 = devCommDoc303 + ` 2.30.7: a world GIN barrier on a RAIL connection WARNs "Cannot create worldGinBarrier with NCCL_GIN_CONNECTION_RAIL." (ncclInvalidArgument).`

// devCommRule is G-DEVCOMM-1 with the doc of the release's form
// (Consts.DevCommForm).
func devCommRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-DEVCOMM-1", Layer: LayerGroup, Title: "device communicators: ncclDevCommCreate's requirements, GIN contexts and connections",
		Doc: doc, Ref: ref, onDemand: true,
		Logs: []string{"Communicator does not support symmetric memory!", "Multicast support requested for team but none available on system.",
			"GIN not supported.", ginDisabledWarn, "User requested GIN resources but did not request GIN to be enabled!",
			"User requested GIN but not all ranks in the communicator support GIN",
			"User requested GIN connection type NCCL_GIN_CONNECTION_FULL but the communicator supports only NCCL_GIN_CONNECTION_RAIL",
			"Requested number of exclusive GIN contexts (%d) exceeds the unallocated count (%d). Use NCCL_GIN_NCONTEXTS to increase the limit",
			"No shared contexts are available (%d requested) as all have been allocated for exclusive use. Use NCCL_GIN_NCONTEXTS to increase the limit",
			"Cannot create worldGinBarrier with NCCL_GIN_CONNECTION_RAIL."},
		group: func(g *groupRun) { g.devComm.decide(g, g.devComm.c.rs.Consts.DevCommForm) },
	}
}

// decide runs ncclDevCommCreate and ncclDevrCommCreateInternal's checks
// in their order and gives the device communicator's GIN, running
// G-DEVCOMM-SHARE-1, -GINTYPE-1 and -QUEUE-1 where NCCL meets them.
//
// Ref: v2.28.3-1 src/dev_runtime.cc ncclDevCommCreate,
// ncclDevrCommCreateInternal, symTeamObtain; v2.28.7-1 and v2.29.2-1 the
// same and src/gin/gin_host.cc ncclGinConnectOnce; v2.29.7-1 the same and
// ncclGinResourcesRequested; v2.30.3-1 src/gin/gin_host.cc
// ncclGinDevCommSetup; v2.30.7-1 src/dev_runtime.cc
// ncclDevrCommCreateInternal
func (r *devCommRun) decide(g *groupRun, form devCommForm) {
	c, q, st := r.c, r.reqs, r.st
	r.form = form
	st.all++
	st.made = append(st.made, devCommRecord{})
	r.rec = &st.made[len(st.made)-1]
	in := &c.Model.In
	if !in.SymmetricSupport {
		why := "no symmetric support (one node or GIN on every node, direct P2P, windows and cuMem on)"
		if !in.OneLSATeam() && c.rs.Consts.GinSymSupport != 0 && !c.gin.Symmetric {
			why += "; across nodes no GIN: " + c.gin.Why
		}
		r.refuse(g, InvalidUsage, "Communicator does not support symmetric memory!", why)
		return
	}
	res := &DevCommResult{GIN: GinConnNone}
	r.res = res
	var facts []Fact
	gin := c.gin
	switch form {
	case devComm287, devComm292:
		asked := q.GinForceEnable || q.GinSignalCount > 0 || q.GinCounterCount > 0
		if form == devComm287 {
			asked = q.GinForceEnable || q.GinSignalCount != 0 || q.GinCounterCount != 0
		}
		activate := asked && (form == devComm287 || gin.Symmetric)
		if asked && !activate {
			facts = append(facts, F("gin", "not connected: no comm->ginSupport ("+gin.Why+")"))
		}
		if activate && !st.ginEnabled {
			// devr->ginEnabled is set before the connection is tried
			st.ginEnabled, st.activatedBy = true, st.all-1
			switch {
			case gin.Name == "":
				r.refuse(g, InvalidUsage, "GIN not supported.", "GIN is asked and the communicator has no GIN object")
				return
			case r.param("NCCL_GIN_ENABLE", 1) == 0:
				r.refuse(g, InternalError, ginDisabledWarn, "GIN is asked and NCCL_GIN_ENABLE=0", F("NCCL_GIN_ENABLE", 0))
				return
			}
			if !r.step(g, "G-DEVCOMM-GINTYPE-1", stepConnectType) {
				return
			}
			st.conn, st.conns = GinConnFull, int(min(ginDefaultContexts, r.param("NCCL_GIN_NCONTEXTS", ginDefaultContexts)))
			r.poolLogs = st.sizePools(c)
			st.connected = true
		}
		if st.ginEnabled {
			res.GIN, res.Connections, res.Contexts = GinConnFull, st.conns, st.conns
			if st.conns > 0 {
				res.ContextsPerConnection = 1
			}
			if st.connected && !r.step(g, "G-DEVCOMM-QUEUE-1", stepQueue) {
				return
			}
		}
	case devComm297, devComm303, devComm307:
		conn := q.GinConnectionType
		if conn == "" {
			conn = GinConnNone
		}
		if q.GinForceEnable {
			conn = GinConnFull
		}
		r.conn = conn
		resources := q.GinSignalCount > 0 || q.GinCounterCount > 0 || q.BarrierCount > 0 || q.RailGinBarrierCount > 0 || form >= devComm303 && q.WorldGinBarrierCount > 0
		global := ginConnection(gin, 2, c.Env)
		switch {
		case resources && conn == GinConnNone:
			r.refuse(g, InvalidArgument, "User requested GIN resources but did not request GIN to be enabled!", "GIN signals, counters or barriers with ginConnectionType NONE")
			return
		case conn == GinConnNone:
		case global == "":
			r.refuse(g, InvalidArgument, "User requested GIN but not all ranks in the communicator support GIN", "comm->globalGinSupport is NONE ("+gin.Why+")")
			return
		case conn == GinConnFull && global == GinConnRail:
			r.refuse(g, InvalidArgument, "User requested GIN connection type NCCL_GIN_CONNECTION_FULL but the communicator supports only NCCL_GIN_CONNECTION_RAIL", "FULL asked where NCCL_CROSS_NIC=0 allows RAIL only", c.setting("NCCL_CROSS_NIC"))
			return
		}
		activate := false
		if conn != GinConnNone {
			if form == devComm297 && !r.step(g, "G-DEVCOMM-SHARE-1", stepBeforeConnect) {
				return
			}
			activate = !st.ginEnabled
			if activate {
				st.ginEnabled, st.activatedBy = true, st.all-1
			}
		}
		if form == devComm307 && q.WorldGinBarrierCount > 0 && conn == GinConnRail {
			r.refuse(g, InvalidArgument, "Cannot create worldGinBarrier with NCCL_GIN_CONNECTION_RAIL.", "a world GIN barrier on a RAIL connection")
			return
		}
		if activate && !r.ginConnect(g, global, &facts) {
			return
		}
		// 2.29.7 takes the contexts before the LSA team; from 2.30.3
		// ncclGinDevCommSetup runs after symTeamObtain
		if form == devComm297 && st.ginEnabled && !r.ginDevContexts(g, &facts) {
			return
		}
	}
	if q.LSAMultimem {
		if !c.NVLSSupport {
			r.refuse(g, InvalidArgument, "Multicast support requested for team but none available on system.", "lsaMultimem without NVLS support (symTeamObtain)")
			return
		}
		res.Multimem = true
	}
	if form >= devComm303 && st.ginEnabled && !r.ginDevContexts(g, &facts) {
		return
	}
	if form >= devComm287 && !r.step(g, "G-DEVCOMM-SHARE-1", stepAlloc) {
		return
	}
	g.dec.DevComm = res
	r.rec.made, r.rec.ctx, r.rec.exclusive = true, res.Contexts, res.Exclusive
	g.emit(Verdict{Outcome: Pass, Why: res.Cell(), Facts: facts})
}

// ginConnect is ncclGinConnectOnce from 2.29.7, for the device
// communicator that enables GIN: the connection type, the connection
// count and (2.29.7) the context pool and queue depth; false when the
// call fails.
func (r *devCommRun) ginConnect(g *groupRun, global string, facts *[]Fact) bool {
	c, q, gin, st := r.c, r.reqs, r.c.gin, r.st
	if r.param("NCCL_GIN_ENABLE", 1) == 0 {
		r.refuse(g, InternalError, ginDisabledWarn, "GIN is asked and NCCL_GIN_ENABLE=0 (ncclGinConnectOnce)", F("NCCL_GIN_ENABLE", 0))
		return false
	}
	if !r.step(g, "G-DEVCOMM-GINTYPE-1", stepConnectType) {
		return false
	}
	// 2.29.7 connects the type asked; from 2.30.3 the one
	// comm->globalGinSupport allows
	st.conn = r.conn
	if r.form >= devComm303 {
		st.conn = global
	}
	asked := q.contexts()
	// a plugin's own ABI; the internal GIN is the release's newest
	v11, below13 := gin.ABI == 11, gin.ABI != 0 && gin.ABI < 13
	conns := c.Topo.LocalGinDevs
	*facts = append(*facts, F("local_gin_devs", conns))
	switch {
	case r.form == devComm297 && v11:
		conns = asked
		if n := r.param("NCCL_GIN_NCONTEXTS", -1); n > 0 {
			conns = int(n)
		}
	case r.form >= devComm303 && below13:
		conns = ginDefaultContexts
	}
	if n := r.param("NCCL_GIN_NCONNECTIONS", -2); n != -2 {
		conns = int(max(min(n, MaxDevCommCount), -MaxDevCommCount))
		*facts = append(*facts, F("NCCL_GIN_NCONNECTIONS", n))
	}
	st.conns = min(ginDefaultContexts, conns)
	if r.form == devComm297 {
		if st.conns <= 0 {
			// NCCL divides by it (ROUNDUP): no decision to give
			r.refuse(g, InternalError, "", fmt.Sprintf("%d GIN connections: ncclGinConnectOnce divides by the count (not modelled)", st.conns))
			return false
		}
		total := int(r.param("NCCL_GIN_NCONTEXTS", -1))
		if total <= 0 {
			total = max(asked, ginDefaultContexts)
		}
		total = (total + st.conns - 1) / st.conns * st.conns
		if v11 {
			total = st.conns
		}
		st.ctxTotal, st.ctxLastExcl, st.ctxFirst = total, total, 0
		r.poolLogs = st.sizePools(c)
		if !r.step(g, "G-DEVCOMM-QUEUE-1", stepQueue) {
			return false
		}
	}
	st.connected = true
	return true
}

// ginDevContexts gives every device communicator made after GIN is
// enabled its contexts (2.29.7+): 2.29.7 from the connection's pool,
// exclusive or shared; from 2.30.3 its own (ncclGinDevCommSetup). false
// when the call fails.
func (r *devCommRun) ginDevContexts(g *groupRun, facts *[]Fact) bool {
	q, st, res := r.reqs, r.st, r.res
	asked := q.contexts()
	res.GIN, res.Connections = st.conn, st.conns
	// 2.30.3–2.30.4's ginIsRailed is the connection's: never on a FULL one
	res.Railed = r.conn == GinConnRail && st.conn == GinConnFull && r.form != devComm303
	if r.form >= devComm303 {
		if !r.step(g, "G-DEVCOMM-SIGNAL-1", stepSignals) {
			return false
		}
		if st.conns <= 0 {
			// NCCL divides by it (ROUNDUP): no decision to give
			r.refuse(g, InternalError, "", fmt.Sprintf("%d GIN connections: ncclGinDevCommSetup divides by the count (not modelled)", st.conns))
			return false
		}
		n := asked
		if gin := r.c.gin; gin.ABI != 0 && gin.ABI < 13 {
			n = st.conns
		}
		res.Contexts = n
		res.ContextsPerConnection = (n + st.conns - 1) / st.conns
		return r.step(g, "G-DEVCOMM-QUEUE-1", stepQueue)
	}
	if st.conns > 0 {
		res.ContextsPerConnection = st.ctxTotal / st.conns
	}
	exclusive := q.GinExclusiveContexts
	if n := r.param("NCCL_GIN_EXCLUSIVE_CONTEXTS", -1); n != -1 {
		exclusive = n != 0
		*facts = append(*facts, F("NCCL_GIN_EXCLUSIVE_CONTEXTS", n))
	}
	unallocated := st.ctxLastExcl - st.ctxFirst
	*facts = append(*facts, F("gin_contexts_unallocated", unallocated))
	if exclusive {
		if asked > unallocated {
			r.refuse(g, InvalidArgument, fmt.Sprintf("Requested number of exclusive GIN contexts (%d) exceeds the unallocated count (%d). Use NCCL_GIN_NCONTEXTS to increase the limit", asked, unallocated),
				"more exclusive GIN contexts than the connection's pool has unallocated", *facts...)
			return false
		}
		res.Contexts, res.Exclusive = asked, true
	} else {
		n := min(asked, st.ctxLastExcl)
		if n <= 0 {
			r.refuse(g, InvalidArgument, fmt.Sprintf("No shared contexts are available (%d requested) as all have been allocated for exclusive use. Use NCCL_GIN_NCONTEXTS to increase the limit", asked),
				"no shared GIN context", *facts...)
			return false
		}
		res.Contexts = n
	}
	if st.activatedBy+1 != st.all {
		return r.step(g, "G-DEVCOMM-QUEUE-1", stepAlloc)
	}
	return true
}

// selectDevComm decides a device communicator call of a group on the
// state its communicator's earlier device communicators left.
func (c *Comm) selectDevComm(rule *Rule, gr *groupRun, st *devCommState) {
	gr.devComm = &devCommRun{c: c, reqs: gr.op.DevComm, st: st}
	rule.group(gr)
}

// devCommCheck refuses a device communicator call NCCL's release cannot
// make: no ncclDevCommCreate before 2.28.3, or a field its struct lacks.
func (c *Comm) devCommCheck(i int, q *DevCommReqs) error {
	form := c.rs.Consts.DevCommForm
	if _, ok := c.rs.rules["G-DEVCOMM-1"]; !ok || form == 0 {
		return opArgErr(i, ArgFunc, "NCCL %s has no ncclDevCommCreate (it arrives in 2.28.3)", c.rs.Version)
	}
	if err := q.check(form); err != nil {
		return opArgErr(i, ArgDevComm, "%w (NCCL %s)", err, c.rs.Version)
	}
	return nil
}

// ParseDevCommReqs reads a call script's FIELD=VALUE items of
// ncclDevCommRequirements_t (NCCL's field names in any case; booleans 0
// or 1, ginConnectionType none, full or rail), each at most once.
func ParseDevCommReqs(items []string) (*DevCommReqs, error) {
	q := &DevCommReqs{}
	seen := map[string]bool{}
	for _, a := range items {
		key, v, ok := strings.Cut(a, "=")
		key = strings.ToLower(key)
		if !ok || seen[key] {
			return nil, fmt.Errorf("%q: expected FIELD=VALUE, each field once", a)
		}
		seen[key] = true
		if key == "ginconnectiontype" {
			q.GinConnectionType = strings.ToLower(v)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < -MaxDevCommCount || n > MaxDevCommCount {
			return nil, fmt.Errorf("%q: expected %s=N with |N| <= %d", a, key, MaxDevCommCount)
		}
		flag := func(dst *bool) error {
			if n != 0 && n != 1 {
				return fmt.Errorf("%q: expected %s=0 or 1", a, key)
			}
			*dst = n == 1
			return nil
		}
		switch key {
		case "lsamultimem":
			err = flag(&q.LSAMultimem)
		case "ginforceenable":
			err = flag(&q.GinForceEnable)
		case "ginexclusivecontexts":
			err = flag(&q.GinExclusiveContexts)
		case "ginstrongsignalsrequired":
			var b bool
			err, q.GinStrongSignalsRequired = flag(&b), &b
		case "ginvasignalsrequired":
			var b bool
			err, q.GinVaSignalsRequired = flag(&b), &b
		case "lsabarriercount":
			q.LSABarrierCount = int(n)
		case "barriercount":
			q.BarrierCount = int(n)
		case "railginbarriercount":
			q.RailGinBarrierCount = int(n)
		case "worldginbarriercount":
			q.WorldGinBarrierCount = int(n)
		case "gincontextcount":
			k := int(n)
			q.GinContextCount = &k
		case "ginsignalcount":
			q.GinSignalCount = int(n)
		case "gincountercount":
			q.GinCounterCount = int(n)
		case "ginqueuedepth":
			q.GinQueueDepth = int(n)
		default:
			return nil, fmt.Errorf("%q: devCommCreate takes lsaMultimem, lsaBarrierCount, barrierCount, railGinBarrierCount, worldGinBarrierCount, ginForceEnable, ginContextCount, ginSignalCount, ginCounterCount, ginConnectionType, ginExclusiveContexts, ginQueueDepth, ginStrongSignalsRequired, ginVaSignalsRequired", a)
		}
		if err != nil {
			return nil, err
		}
	}
	return q, q.check(devComm307)
}
