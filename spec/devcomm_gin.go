package spec

import (
	"fmt"
	"strconv"
)

// The GIN a communicator's device communicators share, per release:
// ncclDevrCommCreateInternal connects GIN once (devr->ginEnabled,
// ginState.connected), and every later device communicator reuses that
// connection; what it reuses besides, and what it counts against a limit,
// changes by release (G-DEVCOMM-SHARE-1). The GIN queues its contexts get
// (G-DEVCOMM-QUEUE-1) and NCCL_GIN_TYPE against the GIN it connects
// (G-DEVCOMM-GINTYPE-1) are checked where ncclGinConnectOnce or
// ncclGinDevCommSetup meets them. G-DEVCOMM-1 runs the three at NCCL's
// points (devCommRun.step).

// GinPools are the signal and counter pools of a communicator's GIN
// (Consts.GinPools): every device communicator allocates its signals and
// counters from them (ncclGinAllocSignalsCounters, first fit) and gives
// them back when it is destroyed (G-DEVCOMM-DESTROY-1).
type GinPools struct {
	// Signals and Counters are NCCL_GIN_SIGNAL_POOL_SIZE's and
	// NCCL_GIN_COUNTER_POOL_SIZE's defaults; 0: no shared pool.
	Signals, Counters int64
	// SignalBound and CounterBound: a value below 0 or at least the bound
	// is invalid, and the default is taken with the line Invalid (%s the
	// variable's name).
	SignalBound, CounterBound int64
	Invalid                   string
}

// GinQueue is the depth of the GIN queues a device communicator's contexts
// get (Consts.GinQueue).
type GinQueue struct {
	// GdakiQPDepth is NCCL_GIN_GDAKI_QP_DEPTH's default: a GDAKI context's
	// send-queue depth (qp_sq_size) when the requirement gives none.
	GdakiQPDepth int64
	// ProxyMaxRequests is NCCL_NET_MAX_REQUESTS × the IB's maxRecvs (32 × 8):
	// the proxy's per-peer queue (queueSize) at most, and
	// NCCL_GIN_PROXY_QUEUE_SIZE's -1.
	ProxyMaxRequests int64
}

// devCommState is what a communicator's device communicators share
// (comm->devrState and comm->sharedRes->ginState), carried from one
// ncclDevCommCreate to the next.
type devCommState struct {
	// ginEnabled is devr->ginEnabled: set by the first device communicator
	// that asks GIN, before it connects, and kept when the connection
	// fails.
	ginEnabled bool
	// connected: ncclGinConnectOnce succeeded; conn is the connection it
	// made ("full" or "rail") and conns ginCommCount, both set before its
	// connections are made.
	connected bool
	conn      string
	conns     int
	// depth is the ginQueueDepth the connection was made with (2.29.7).
	depth int
	// ctxLastExcl and ctxFirst are ginState.ctxLastExclusive and
	// ctxFirstAvailable, the context pool of 2.29.7.
	ctxTotal, ctxLastExcl, ctxFirst int
	// signals and counters are the pools' allocated ranges; signalPool
	// and counterPool their sizes, set at connect.
	signals, counters         ginSpace
	signalPool, counterPool   int64
	poolsSet                  bool
	created, activatedBy, all int
	// made are the communicator's device communicators in creation order
	// (the nth ncclDevCommCreate at made[n-1]), for ncclDevCommDestroy.
	made []devCommRecord
}

// devCommRecord is what one device communicator holds of what the
// communicator's device communicators share.
type devCommRecord struct {
	// made: the call succeeded; destroyed: ncclDevCommDestroy ran.
	made, destroyed bool
	// sigBase, sig, ctrBase and ctr are its signals and counters in the
	// pools (ginSignalBase, ginSignalCount, ...; 2.28.7–2.29.7).
	sigBase, sig, ctrBase, ctr int64
	// ctxBase and ctx are its GIN contexts (ginContextBase,
	// ginContextCount); exclusive whether they were taken for it alone
	// (2.29.7).
	ctxBase, ctx int
	exclusive    bool
}

// ginSpace is ncclSpace with alignment 1: the allocated ranges of a pool,
// sorted; an allocation takes the lowest free range that fits (first fit)
// and a free gives its range back.
//
// Ref: v2.28.7-1 src/allocator.cc ncclSpaceAlloc, ncclSpaceFree
type ginSpace struct{ used [][2]int64 }

// alloc takes n (> 0) below limit: its base, or false when no free range
// fits.
func (s *ginSpace) alloc(n, limit int64) (int64, bool) {
	lo := int64(0)
	for i, u := range s.used {
		if lo+n <= u[0] {
			s.used = append(s.used[:i], append([][2]int64{{lo, lo + n}}, s.used[i:]...)...)
			return lo, true
		}
		lo = u[1]
	}
	if lo+n > limit {
		return 0, false
	}
	s.used = append(s.used, [2]int64{lo, lo + n})
	return lo, true
}

// free gives back the range an alloc returned.
func (s *ginSpace) free(base, n int64) {
	for i, u := range s.used {
		if u == [2]int64{base, base + n} {
			s.used = append(s.used[:i], s.used[i+1:]...)
			return
		}
	}
}

// total is the count allocated.
func (s *ginSpace) total() int64 {
	var t int64
	for _, u := range s.used {
		t += u[1] - u[0]
	}
	return t
}

// devCommStep names a point of ncclDevrCommCreateInternal where a rule of
// its own runs.
type devCommStep int

const (
	stepBeforeConnect devCommStep = iota // the requested connection against the one made (G-DEVCOMM-SHARE-1)
	stepConnectType                      // ncclGinConnectOnce's NCCL_GIN_TYPE check (G-DEVCOMM-GINTYPE-1)
	stepQueue                            // the queue depth where the release reads it (G-DEVCOMM-QUEUE-1)
	stepAlloc                            // signals, counters and contexts taken from what is shared (G-DEVCOMM-SHARE-1)
	stepSignals                          // the signal kinds asked against the GIN's (G-DEVCOMM-SIGNAL-1)
)

// step runs rule id's hook at point s, when the release has the rule;
// false when the call failed there.
func (r *devCommRun) step(g *groupRun, id RuleID, s devCommStep) bool {
	rule, ok := r.c.rs.rules[id]
	if !ok {
		return true
	}
	r.at, r.rule = s, id
	n := len(g.out)
	rule.group(g)
	for i := n; i < len(g.out); i++ {
		g.out[i].Rule = id
	}
	r.rule = ""
	if g.dec.Err != nil {
		g.dec.DecidedBy = id
		return false
	}
	return true
}

// fail fails the call at a step's rule with NCCL's WARN.
func (r *devCommRun) fail(g *groupRun, res Result, warn, why string, facts ...Fact) {
	g.dec.Err = &NCCLError{Result: res, Message: warn, Call: "ncclDevCommCreate"}
	g.emit(Verdict{Outcome: Fail, Why: "ncclDevCommCreate fails with " + res.String() + ": " + why, Facts: facts, Log: []string{warn}})
}

// lsaRanks is the LSA team's size (devr->lsaSize): the whole communicator
// when it is one LSA team, across cliques its NVL domain, else a node.
func (c *Comm) lsaRanks() int {
	in := &c.Model.In
	switch {
	case in.OneLSATeam():
		return c.NRanks
	case in.CrossClique && in.NVLDomainSize > 0:
		return in.NVLDomainSize
	}
	return max(1, in.LocalRanks)
}

const ginTypeMismatchWarn = "GIN-capable device type mismatch."

const ginTypeDoc287 = `ncclGinConnectOnce, on the device communicator that connects GIN, compares NCCL_GIN_TYPE (set, not -1) with the device type of the GIN it connects (getProperties(0).netDeviceType; 2.29.2–2.29.3 getGinType) and WARNs "GIN-capable device type mismatch." (ncclInternalError) when they differ. The internal IB GIN is chosen by NCCL_GIN_TYPE (2 the proxy, 3 GDAKI, any other value none: "GIN not supported."), so only an external GIN plugin (its type taken as GDAKI, 3) meets a mismatch. The ranks' types are not compared: at 2.29.2–2.29.3, where symmetric memory spans nodes with a GIN object on each, a node of GDAKI and one of the proxy connect each their own backend without a word.`

const ginTypeDoc297 = `2.29.7–2.30.4: NCCL_GIN_TYPE is read only by the internal IB GIN (ncclGinIbInit, ncclGinIbInitType: 2 the proxy, 3 GDAKI, another value "NET_IB: no support for GIN type %ld"); ncclGinConnectOnce compares nothing, so an external GIN plugin connects whatever NCCL_GIN_TYPE says, without a line. Ranks whose GIN types differ (or one none) leave comm->globalGinSupport NONE: G-DEVCOMM-1's "User requested GIN but not all ranks in the communicator support GIN".`

const ginTypeDoc307 = `2.30.7: ncclGinPluginAssignToComm skips a plugin whose device type is not NCCL_GIN_TYPE ("GIN/Plugin: Skipping plugin %s index %d type %d: NCCL_GIN_TYPE=%ld requested", G-GIN-1) and assigns the next, so the GIN a device communicator connects is always of the requested type; ncclGinConnectOnce compares nothing. Ranks whose GIN types differ leave comm->globalGinSupport NONE (G-DEVCOMM-1).`

// devCommGinTypeRule is G-DEVCOMM-GINTYPE-1 with its release's doc.
func devCommGinTypeRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-DEVCOMM-GINTYPE-1", Layer: LayerGroup, Title: "NCCL_GIN_TYPE against the GIN a device communicator connects",
		Doc: doc, Ref: ref, onDemand: true, Logs: []string{ginTypeMismatchWarn},
		group: func(g *groupRun) { g.devComm.ginType(g) },
	}
}

// ginType is G-DEVCOMM-GINTYPE-1: at 2.28.7–2.29.3 it runs in
// ncclGinConnectOnce (stepConnectType) and may fail the call; later it
// says whether NCCL_GIN_TYPE and the ranks' types were compared.
//
// Ref: v2.28.7-1 src/gin/gin_host.cc ncclGinConnectOnce; v2.29.2-1 the
// same, getGinType; v2.29.7-1 src/transport/net_ib/gin.cc ncclGinIbInit;
// v2.30.7-1 src/plugin/gin.cc ncclGinPluginAssignToComm
func (r *devCommRun) ginType(g *groupRun) {
	gin := r.c.gin
	want, _, _ := intParam(r.c.Env, "NCCL_GIN_TYPE", -1)
	facts := []Fact{r.c.setting("NCCL_GIN_TYPE"), F("gin", gin.Name), F("gin_type", gin.Type)}
	external := gin.ABI != 0
	switch r.form {
	case devComm287, devComm292:
		if want != -1 && want != int64(gin.Type) {
			r.fail(g, InternalError, ginTypeMismatchWarn, fmt.Sprintf("NCCL_GIN_TYPE=%d and the GIN connected (%s) is of type %d (ncclGinConnectOnce)", want, gin.Name, gin.Type), facts...)
			return
		}
		why := "NCCL_GIN_TYPE unset: any GIN type connects"
		if want != -1 {
			why = "NCCL_GIN_TYPE=" + strconv.FormatInt(want, 10) + " is the connected GIN's type"
		}
		if gin.TypesDiffer {
			why += "; the ranks' GIN types differ and NCCL does not compare them: each rank connects its own backend"
			facts = append(facts, F("gin_types_differ", true))
		}
		g.emit(Verdict{Outcome: Pass, Why: why, Facts: facts})
	case devComm297, devComm303:
		why := "NCCL_GIN_TYPE unset"
		switch {
		case want != -1 && external && want != int64(gin.Type):
			why = fmt.Sprintf("NCCL_GIN_TYPE=%d is read by the internal IB GIN only: the external plugin %s (type %d) connects, without a line", want, gin.Name, gin.Type)
		case want != -1:
			why = "NCCL_GIN_TYPE=" + strconv.FormatInt(want, 10) + " chose the internal IB GIN's type (G-GIN-1)"
		}
		g.emit(Verdict{Outcome: Pass, Why: why + "; ncclGinConnectOnce compares no type", Facts: facts})
	default:
		why := "NCCL_GIN_TYPE unset: G-GIN-1 assigned the first GIN that initialised"
		if want != -1 {
			why = "NCCL_GIN_TYPE=" + strconv.FormatInt(want, 10) + ": G-GIN-1 assigned only a GIN of that type"
		}
		g.emit(Verdict{Outcome: Pass, Why: why + "; ncclGinConnectOnce compares no type", Facts: facts})
	}
}

const queueProxyWarn = "GIN_IB_PROXY does not support specifying qp depth"
const queueV11Warn = "GIN plugin v11 does not support specifying queue depth"

const queueDoc287 = `The GIN queues a device communicator's contexts get. 2.28.7–2.29.3 (no ginQueueDepth field): a GDAKI context's QPs have NCCL_GIN_GDAKI_QP_DEPTH (default 128) send-queue entries (ncclGinGdakiCreateContext); the proxy's per-peer queue is NCCL_GIN_PROXY_QUEUE_SIZE (-1: NCCL_NET_MAX_REQUESTS × the IB's maxRecvs, 32 × 8 = 256), which takes that maximum, with an INFO, when it is greater ("NCCL_GIN_PROXY_QUEUE_SIZE is greater than the maximum outstanding requests in the GIN plugin (%d), using the default/maximum value instead"), less than 1 or not a power of two (ncclGinProxyCreateContext); an external plugin's queues are its own.`

const queueDoc297 = queueDoc287 + ` 2.29.7: ginQueueDepth of the device communicator that connects GIN goes to connect (ncclGinConnectOnce; 0 leaves the connection's, 0): GDAKI takes a positive one as its send-queue depth; the IB proxy WARNs "GIN_IB_PROXY does not support specifying qp depth" and a v11 plugin "GIN plugin v11 does not support specifying queue depth" for any other than 0 (ncclInvalidUsage); a v12 plugin is given it. Later device communicators' ginQueueDepth is not read: they share the connection's queues.`

const queueDoc303 = queueDoc287 + ` 2.30.3–2.30.4: each device communicator's contexts are created with its own ginQueueDepth (ncclGinDevCommSetup, ncclGinConfig_t.queueDepth): GDAKI takes a positive one; the IB proxy (under the GIN proxy layer) WARNs "GIN_IB_PROXY does not support specifying qp depth" (ncclInvalidUsage) for any other than 0; a v11 or v12 plugin is not given it; a v13 plugin is.`

const queueDoc307 = queueDoc303 + ` 2.30.7: the GIN proxy over the RMA plugin passes no queue depth to it (ncclRmaConfig_t has none), so the proxy ignores ginQueueDepth; GDAKI as before; a v13 or v14 plugin is given it.`

// devCommQueueRule is G-DEVCOMM-QUEUE-1 with its release's doc.
func devCommQueueRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-DEVCOMM-QUEUE-1", Layer: LayerGroup, Title: "GIN queue depth of a device communicator's contexts",
		Doc: doc, Ref: ref, onDemand: true,
		Logs: []string{queueProxyWarn, queueV11Warn,
			"NCCL_GIN_PROXY_QUEUE_SIZE is greater than the maximum outstanding requests in the GIN plugin (%d), using the default/maximum value instead",
			"NCCL_GIN_PROXY_QUEUE_SIZE is less than 1, using the default/maximum value instead",
			"NCCL_GIN_PROXY_QUEUE_SIZE is not a power of two, using the default/maximum value instead"},
		group: func(g *groupRun) { g.devComm.queue(g) },
	}
}

// queue is G-DEVCOMM-QUEUE-1: the depth the device communicator's
// contexts get, or NCCL's refusal of the requirement's ginQueueDepth.
// 2.28.7–2.29.7 run it when GIN connects; 2.30.3+ for every device
// communicator with GIN (its contexts are its own).
//
// Ref: v2.28.7-1 src/transport/gdaki/gin_host_gdaki.cc
// ncclGinGdakiCreateContext, src/gin/gin_host_proxy.cc
// ncclGinProxyCreateContext; v2.29.7-1 src/gin/gin_host.cc
// ncclGinConnectOnce, src/transport/net_ib/gin.cc ncclGinIbProxyConnect,
// src/plugin/gin/gin_v11.cc ncclGin_connect; v2.30.3-1 src/gin/gin_host.cc
// ncclGinDevCommSetup, src/transport/net_ib/gin.cc
// ncclGinIbProxyCreateContext, src/plugin/gin/gin_v12.cc; v2.30.7-1
// src/gin/gin_host_proxy.cc ncclGinProxyCreateContext
func (r *devCommRun) queue(g *groupRun) {
	c, gin, res := r.c, r.c.gin, r.res
	depth := 0
	if r.form >= devComm297 {
		depth = r.reqs.GinQueueDepth
	}
	if r.form == devComm297 && r.at != stepQueue {
		// a later device communicator: the connection's queues
		res.QueueDepth, res.ProxyQueue = r.st.queues(c, r.st.depth)
		g.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("GIN is connected already: ginQueueDepth %d is not read, the queues are the connection's (ginQueueDepth %d)%s", depth, r.st.depth, queueCell(res)),
			Facts: []Fact{F("ginQueueDepth", depth), F("connection_depth", r.st.depth)}})
		return
	}
	facts := []Fact{F("ginQueueDepth", depth), F("gin", gin.Name), F("gin_type", ginTypeName(gin.Type))}
	if gin.ABI != 0 {
		facts = append(facts, F("gin_abi", gin.ABI))
	}
	external := gin.ABI != 0
	switch {
	case depth == 0:
	case r.form == devComm297 && external && gin.ABI == 11:
		r.fail(g, InvalidUsage, queueV11Warn, fmt.Sprintf("ginQueueDepth %d on a v11 GIN plugin (ncclGin_connect)", depth), facts...)
		return
	case (r.form == devComm297 || r.form == devComm303) && !external && gin.Type == ginTypeProxy:
		r.fail(g, InvalidUsage, queueProxyWarn, fmt.Sprintf("ginQueueDepth %d on the IB proxy GIN", depth), facts...)
		return
	}
	if r.form == devComm297 {
		r.st.depth = depth
	}
	var logs []string
	res.QueueDepth, res.ProxyQueue, logs = r.st.queuesLogged(c, depth)
	why := "the contexts' queues:" + queueCell(res)
	switch {
	case external && r.form < devComm297:
		why = fmt.Sprintf("the v%d GIN plugin's queues are its own", gin.ABI)
	case external && (r.form == devComm303 && gin.ABI < 13 || r.form == devComm297 && gin.ABI < 12):
		why = fmt.Sprintf("a v%d GIN plugin is given no queue depth: its queues are its own", gin.ABI)
	case external:
		why = fmt.Sprintf("the v%d GIN plugin is given ginQueueDepth %d: its queues are its own", gin.ABI, depth)
	case depth != 0 && gin.Type == ginTypeProxy:
		why = fmt.Sprintf("the GIN proxy over the RMA plugin passes no queue depth: ginQueueDepth %d is ignored;", depth) + queueCell(res)
	}
	facts = c.settingsSet(facts, "NCCL_GIN_GDAKI_QP_DEPTH", "NCCL_GIN_PROXY_QUEUE_SIZE")
	g.emit(Verdict{Outcome: Pass, Why: why, Facts: facts, Log: logs})
}

// queueCell says the queues in a few words.
func queueCell(res *DevCommResult) string {
	switch {
	case res.QueueDepth > 0:
		return fmt.Sprintf(" GDAKI send queues of %d entries", res.QueueDepth)
	case res.ProxyQueue > 0:
		return fmt.Sprintf(" proxy queues of %d requests per peer", res.ProxyQueue)
	}
	return " not modelled for this GIN"
}

// queues is queuesLogged without its lines.
func (st *devCommState) queues(c *Comm, depth int) (int, int) {
	d, p, _ := st.queuesLogged(c, depth)
	return d, p
}

// queuesLogged gives the GDAKI send-queue depth (a positive ginQueueDepth,
// else NCCL_GIN_GDAKI_QP_DEPTH) or the proxy's per-peer queue
// (NCCL_GIN_PROXY_QUEUE_SIZE within the IB's maximum, a power of two) of
// the communicator's internal GIN, and the INFO lines of the proxy's
// sanitising; 0, 0 for an external plugin or a proxy over an external RMA
// plugin, whose maxRecvs gatesim does not know.
func (st *devCommState) queuesLogged(c *Comm, depth int) (int, int, []string) {
	gin, q := c.gin, c.rs.Consts.GinQueue
	switch {
	case gin.ABI != 0:
		return 0, 0, nil
	case gin.Type == ginTypeGDAKI:
		if depth > 0 {
			return depth, 0, nil
		}
		v, _, _ := intParam(c.Env, "NCCL_GIN_GDAKI_QP_DEPTH", q.GdakiQPDepth)
		return int(max(min(v, MaxDevCommCount), -MaxDevCommCount)), 0, nil
	case gin.Type == ginTypeProxy && (gin.Name == "GIN_IB_PROXY" || gin.Name == "RMA_IB_PROXY"):
		v, _, _ := intParam(c.Env, "NCCL_GIN_PROXY_QUEUE_SIZE", -1)
		size, most := uint64(v), uint64(q.ProxyMaxRequests)
		var logs []string
		if v == -1 {
			size = most
		}
		if size > most {
			logs = append(logs, fmt.Sprintf("NCCL_GIN_PROXY_QUEUE_SIZE is greater than the maximum outstanding requests in the GIN plugin (%d), using the default/maximum value instead", most))
			size = most
		}
		if size < 1 {
			logs = append(logs, "NCCL_GIN_PROXY_QUEUE_SIZE is less than 1, using the default/maximum value instead")
			size = most
		}
		if size&(size-1) != 0 {
			logs = append(logs, "NCCL_GIN_PROXY_QUEUE_SIZE is not a power of two, using the default/maximum value instead")
			size = most
		}
		return 0, int(size), logs
	}
	return 0, 0, nil
}

const shareRailWarn = "User requested GIN connection type NCCL_GIN_CONNECTION_FULL but the communicator is already connected with NCCL_GIN_CONNECTION_RAIL"

const shareDoc287 = `Several device communicators on one communicator (ncclDevCommCreate called again, in one group or later): the first that asks GIN sets devr->ginEnabled and connects (ncclGinConnectOnce); every later one reuses that connection and its contexts, and gets them whether or not it asks GIN (devr->ginEnabled stays set even when the connection failed: a later one then has no context). Signals and counters come from pools of the communicator, each request taking the lowest free range that fits (ncclSpaceAlloc) and ncclDevCommDestroy giving it back (G-DEVCOMM-DESTROY-1): NCCL_GIN_SIGNAL_POOL_SIZE and NCCL_GIN_COUNTER_POOL_SIZE (64 Ki each; a value below 0 or at least 2^30 WARNs "%s has invalid value." and takes the default). A device communicator's signals are its ginSignalCount and max(barrierCount, railGinBarrierCount) × the rail team's ranks; one beyond what its pool has left WARNs "Allocation failed. No suitable space found to accommodate size=0x%lx within limit=0x%lx" (ncclInternalError, ncclSpaceAlloc).`

const shareDoc297 = `Several device communicators on one communicator: the first that asks GIN (a connection type, or ginForceEnable) sets devr->ginEnabled and connects with its connection type, contexts and queue depth; later ones reuse the connection, and one asking FULL where it is RAIL WARNs "User requested GIN connection type NCCL_GIN_CONNECTION_FULL but the communicator is already connected with NCCL_GIN_CONNECTION_RAIL" (ncclInvalidArgument). Every device communicator after GIN is enabled gets contexts, asked or not, from one pool of the connection's contexts (NCCL_GIN_NCONTEXTS, else max(the first's ginContextCount, 4), rounded up to the connections): exclusive ones are taken from its top and counted against it (ctxLastExclusive), so later exclusive requests see fewer ("Requested number of exclusive GIN contexts (%d) exceeds the unallocated count (%d)...") and shared ones are capped at what exclusive ones left ("No shared contexts are available..." when none). Signals and counters come from the communicator's pools, NCCL_GIN_SIGNAL_POOL_SIZE and NCCL_GIN_COUNTER_POOL_SIZE (512 Ki; INFO "%s has an invalid value" below 0 or at least 2^24 and 2^23), the lowest free range that fits; one beyond what is left WARNs "Allocation failed. No suitable space found to accommodate size=0x%lx within limit=0x%lx" (ncclInternalError). INFO "Initialized a devComm with %d GIN connections, %d %s contexts (base %d), %d signals (base %d), %d counters (base %d)".`

const shareDoc303 = `Several device communicators on one communicator: the first that asks GIN sets devr->ginEnabled and connects (ncclGinConnectOnce) with the connection comm->globalGinSupport allows (FULL, or RAIL under NCCL_CROSS_NIC=0), whatever it asked; later ones reuse the connections. Each device communicator after GIN is enabled, asked or not, gets contexts of its own (ncclGinDevCommSetup creates them on every connection, its signals and counters with them), so none is counted against another's and no pool is shared; NCCL_GIN_SIGNAL_POOL_SIZE and NCCL_GIN_COUNTER_POOL_SIZE are gone.`

// devCommShareRule is G-DEVCOMM-SHARE-1 with its release's doc.
func devCommShareRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-DEVCOMM-SHARE-1", Layer: LayerGroup, Title: "GIN connections, contexts and pools shared by a communicator's device communicators",
		Doc: doc, Ref: ref, onDemand: true,
		Logs: []string{shareRailWarn, "Allocation failed. No suitable space found to accommodate size=0x%lx within limit=0x%lx",
			"NCCL_GIN_SIGNAL_POOL_SIZE has invalid value.", "NCCL_GIN_COUNTER_POOL_SIZE has invalid value.",
			"NCCL_GIN_SIGNAL_POOL_SIZE has an invalid value", "NCCL_GIN_COUNTER_POOL_SIZE has an invalid value",
			"Initialized a devComm with %d GIN connections, %d %s contexts (base %d), %d signals (base %d), %d counters (base %d)"},
		group: func(g *groupRun) { g.devComm.share(g) },
	}
}

// share is G-DEVCOMM-SHARE-1: before GIN connects (2.29.7: a FULL request
// on a RAIL connection), and once the device communicator is built: what
// it takes from what the communicator's device communicators share.
//
// Ref: v2.28.7-1 src/dev_runtime.cc ncclDevrCommCreateInternal,
// src/gin/gin_host.cc ncclGinConnectOnce, ncclGinAllocSignalsCounters,
// src/allocator.cc ncclSpaceAlloc; v2.29.7-1 the same and
// ncclDevCommDestroy; v2.30.3-1 src/gin/gin_host.cc ncclGinConnectOnce,
// ncclGinDevCommSetup
func (r *devCommRun) share(g *groupRun) {
	st, res := r.st, r.res
	if r.at == stepBeforeConnect {
		if r.conn == GinConnFull && st.conn == GinConnRail {
			r.fail(g, InvalidArgument, shareRailWarn, fmt.Sprintf("FULL asked where device communicator %d connected GIN rail only", st.activatedBy+1))
		}
		return
	}
	nth := fmt.Sprintf("device communicator %d of the communicator", st.all)
	if !st.ginEnabled {
		g.emit(Verdict{Outcome: Skip, Why: nth + ": GIN not enabled, nothing shared"})
		return
	}
	facts := []Fact{F("nth", st.all), F("gin_connected_by", st.activatedBy+1)}
	why := nth + ": "
	var logs []string
	if st.activatedBy+1 == st.all {
		why += "GIN connected here"
		logs = r.poolLogs
	} else {
		res.Reused = true
		why += fmt.Sprintf("reuses the GIN connection device communicator %d made", st.activatedBy+1)
	}
	if !st.connected {
		why += " (its connection failed: no connection made)"
	}
	pools := r.c.rs.Consts.GinPools
	if pools.Signals == 0 {
		g.emit(Verdict{Outcome: Pass, Why: why + fmt.Sprintf("; its %d context(s) are its own (ncclGinDevCommSetup), no pool shared", res.Contexts), Facts: facts})
		return
	}
	q := r.reqs
	rail := max(1, r.c.NRanks/r.c.lsaRanks())
	sig := int64(q.GinSignalCount) + int64(max(q.BarrierCount, q.RailGinBarrierCount))*int64(rail)
	ctr := int64(q.GinCounterCount)
	if !st.poolsSet {
		// the pools are sized in ncclGinConnectOnce: a failed connection
		// left them empty
		st.signalPool, st.counterPool = 0, 0
	}
	facts = append(facts, F("signals", sig), F("signal_pool", st.signalPool), F("signals_allocated", st.signals.total()), F("counters", ctr), F("counter_pool", st.counterPool), F("counters_allocated", st.counters.total()))
	// ncclGinAllocSignalsCounters takes the signals, then the counters,
	// giving the signals back when the counters do not fit
	var sigBase, ctrBase int64
	for k, a := range []struct {
		n    int64
		sp   *ginSpace
		pool int64
		base *int64
	}{{sig, &st.signals, st.signalPool, &sigBase}, {ctr, &st.counters, st.counterPool, &ctrBase}} {
		if a.n <= 0 {
			continue
		}
		used := a.sp.total()
		b, ok := a.sp.alloc(a.n, a.pool)
		if !ok {
			if k == 1 && sig > 0 {
				st.signals.free(sigBase, sig)
			}
			warn := fmt.Sprintf("Allocation failed. No suitable space found to accommodate size=%#x within limit=%#x", a.n, a.pool)
			r.fail(g, InternalError, warn, fmt.Sprintf("%d more where no free range of a pool of %d fits them, %d allocated by the communicator's live device communicators (ncclGinAllocSignalsCounters, ncclSpaceAlloc: first fit)", a.n, a.pool, used), facts...)
			return
		}
		*a.base = b
	}
	if r.rec != nil {
		r.rec.sigBase, r.rec.sig, r.rec.ctrBase, r.rec.ctr = sigBase, max(sig, 0), ctrBase, max(ctr, 0)
	}
	why += fmt.Sprintf("; signals %d..%d of a pool of %d, counters %d..%d of %d", sigBase, sigBase+max(sig, 0), st.signalPool, ctrBase, ctrBase+max(ctr, 0), st.counterPool)
	if r.form == devComm297 {
		kind, base := "shared", 0
		if res.Exclusive {
			st.ctxLastExcl -= res.Contexts
			kind, base = "exclusive", st.ctxLastExcl
			if r.rec != nil {
				r.rec.ctxBase = base
			}
		} else {
			st.ctxFirst = max(st.ctxFirst, res.Contexts)
		}
		why += fmt.Sprintf("; %d %s context(s) from base %d (%d left for exclusive use)", res.Contexts, kind, base, st.ctxLastExcl-st.ctxFirst)
		logs = append(logs, fmt.Sprintf("Initialized a devComm with %d GIN connections, %d %s contexts (base %d), %d signals (base %d), %d counters (base %d)",
			res.Connections, res.Contexts, kind, base, sig, sigBase, ctr, ctrBase))
	} else {
		why += fmt.Sprintf("; the connection's %d context(s), shared by every device communicator", res.Contexts)
	}
	g.emit(Verdict{Outcome: Pass, Why: why, Facts: facts, Log: logs})
}

// sizePools sizes the signal and counter pools as ncclGinConnectOnce does
// (Consts.GinPools): the variables, or their defaults when invalid. The
// lines it returns are the invalid values' WARN (2.28.7–2.29.3) or INFO.
func (st *devCommState) sizePools(c *Comm) []string {
	p := c.rs.Consts.GinPools
	var logs []string
	size := func(name string, def, bound int64) int64 {
		v, _, _ := intParam(c.Env, name, def)
		if v < 0 || v >= bound {
			logs = append(logs, fmt.Sprintf(p.Invalid, name))
			return def
		}
		return v
	}
	st.signalPool = size("NCCL_GIN_SIGNAL_POOL_SIZE", p.Signals, p.SignalBound)
	st.counterPool = size("NCCL_GIN_COUNTER_POOL_SIZE", p.Counters, p.CounterBound)
	st.poolsSet = true
	return logs
}
