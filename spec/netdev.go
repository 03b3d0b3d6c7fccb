package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// Layer 3: which networks initialise, which one the communicator uses, and
// whether a CollNet object comes with it.

// ifListMatch is matchIfList with NCCL's '^' and '=' prefixes handled,
// for a list whose entries' rail and plane nothing reads (socket
// interfaces: port -1 matches any entry's port, so both grammars of
// parseStringList pick the same names).
func ifListMatch(list, name string, port int) bool {
	_, ok := ifListEntry(list, name, port, false)
	return ok
}

// ifListEntry is matchIfList with NCCL's '^' and '=' prefixes handled,
// the list read in the release's grammar (topo.ParseIfList): whether
// name:port passes, and the entry it matched (Rail and Plane -1 when
// none, an excluding list or no list).
func ifListEntry(list, name string, port int, railPlane bool) (topo.NetIf, bool) {
	none := topo.NetIf{Port: -1, Rail: -1, Plane: -1}
	if list == "" {
		return none, true
	}
	exclude := strings.HasPrefix(list, "^")
	if exclude {
		list = list[1:]
	}
	exact := strings.HasPrefix(list, "=")
	if exact {
		list = list[1:]
	}
	entries := topo.ParseIfList(list, railPlane)
	if len(entries) == 0 {
		return none, !exclude
	}
	for _, e := range entries {
		nameOK := strings.HasPrefix(name, e.Name)
		if exact {
			nameOK = name == e.Name
		}
		if nameOK && (e.Port == -1 || port == -1 || e.Port == port) {
			if exclude {
				return none, false
			}
			return e, true
		}
	}
	return none, exclude
}

// ipIf is a parsed IPInterfaces entry: "eth0" or "eth0:10.0.0.1".
type ipIf struct{ name, addr string }

func (n *Node) ipIfs(nodeIdx int) []ipIf {
	var out []ipIf
	for i, s := range n.IPInterfaces {
		name, addr, ok := strings.Cut(s, ":")
		if !ok {
			addr = fmt.Sprintf("10.%d.%d.%d", nodeIdx/256%256, nodeIdx%256, i+1)
		}
		out = append(out, ipIf{name, addr})
	}
	return out
}

// findInterfaces is ncclFindInterfaces: NCCL_SOCKET_IFNAME (when longer
// than one character) or else "ib*", then anything but docker/lo/virbr,
// then docker, then lo, then virbr.
func findInterfaces(env Env, ifs []ipIf, max int) []ipIf {
	pick := func(list string) []ipIf {
		var out []ipIf
		for _, f := range ifs {
			if len(out) < max && ifListMatch(list, f.name, -1) {
				out = append(out, f)
			}
		}
		return out
	}
	if v := env["NCCL_SOCKET_IFNAME"]; len(v) > 1 {
		return pick(v)
	}
	for _, l := range []string{"ib", "^docker,lo,virbr", "docker", "lo", "virbr"} {
		if got := pick(l); len(got) > 0 {
			return got
		}
	}
	return nil
}

// ibInit is the internal IB transport's init on a node (ncclIbInit /
// ncclIbInitDevices). It returns whether init succeeded, the device count,
// the log lines and why.
func (r *initRun) ibInit(s *nodeState, withUsingOnZero bool) (ok bool, ndev int, logs []string, why string) {
	if r.param("NCCL_IB_DISABLE") != 0 {
		return false, 0, nil, "NCCL_IB_DISABLE is set: the IB transport's init fails"
	}
	if !s.node.Driver.Verbs {
		return false, 0, []string{"Failed to open libibverbs.so[.1]"}, "libibverbs cannot be loaded"
	}
	oob := findInterfaces(r.env, s.node.ipIfs(s.nodes[0]), 1)
	if len(oob) == 0 {
		return false, 0, []string{"NET/IB : No IP interface found."}, "no IP interface for the out-of-band connection"
	}
	hca := r.env["NCCL_IB_HCA"]
	if hca != "" {
		logs = append(logs, "NCCL_IB_HCA set to "+hca)
	}
	type port struct {
		n NIC
		e topo.NetIf
	}
	var ports []port
	planes := make([]int, 0, len(s.node.NICs))
	for _, n := range s.node.NICs {
		if e, ok := ifListEntry(hca, n.Name, n.Port, r.rs.TopoParams.IfListRailPlane); ok && n.Active {
			ports = append(ports, port{n, e})
			planes = append(planes, e.Plane)
		}
	}
	// G-NET-IB-PLANE-1: the plane ids are indexed port by port after the
	// ports are listed, each port made a virtual device as it passes
	idx, bad, warn := topo.IBPlaneIndexes(planes)
	s.ibPlane = ibPlaneState{ids: planes, idx: idx, bad: bad, warn: warn, ran: true}
	var line strings.Builder
	for i, p := range ports {
		if i == bad {
			return false, 0, append(logs, warn), "NCCL_IB_HCA plane id of " + p.n.Name + ": " + warn + " (ncclIbInitDevices fails with ncclInvalidUsage)"
		}
		n, e := p.n, p.e
		ll := n.LinkLayer
		if ll == "" {
			ll = "IB"
		}
		// 2.30.7 prints the entry's rail and plane after the port (an
		// empty rail before a plane)
		fmt.Fprintf(&line, " [%d]%s:%d", ndev, n.Name, max(n.Port, 1))
		switch {
		case e.Rail != -1:
			fmt.Fprintf(&line, ":%d", e.Rail)
		case e.Plane != -1:
			line.WriteString(":")
		}
		if e.Plane != -1 {
			fmt.Fprintf(&line, ":%d", e.Plane)
		}
		line.WriteString("/" + ll)
		// 2.24.3+: every port is a virtual device of its own first
		// (ncclIbInitDevices calls ncclIbMakeVDeviceInternal per port)
		if vd := topo.IBVDeviceLog(r.rs.TopoParams, ndev, n.Name, int64(n.SpeedMbps), 1, e.Rail, e.Plane); vd != "" {
			logs = append(logs, vd)
		}
		ndev++
	}
	oobS := oob[0].name + ":" + oob[0].addr + "<0>"
	// relaxed ordering is a property of the verbs library (ibv_reg_mr_iova2),
	// not of the ports, so "[RO]" shows even without a device
	if ndev == 0 {
		logs = append(logs, "NET/IB : No device found.")
		if withUsingOnZero {
			logs = append(logs, "NET/IB : Using [RO]; OOB "+oobS)
		}
		return true, 0, logs, "no active verbs port" + hcaNote(hca)
	}
	logs = append(logs, "NET/IB : Using"+line.String()+" [RO]; OOB "+oobS)
	return true, ndev, logs, fmt.Sprintf("%d active verbs port(s)", ndev)
}

// ibPortUsable: ncclIbInitDevices keeps an active port that NCCL_IB_HCA
// (hca) matches, the list read in the release's grammar (railPlane:
// 2.30.7's name:port:rail:plane, where an empty port matches any).
func ibPortUsable(hca string, n NIC, railPlane bool) bool {
	if !n.Active {
		return false
	}
	_, ok := ifListEntry(hca, n.Name, n.Port, railPlane)
	return ok
}

func hcaNote(hca string) string {
	if hca == "" {
		return ""
	}
	return " matching NCCL_IB_HCA=" + hca
}

// socketInit is ncclNetSocketInit.
func (r *initRun) socketInit(s *nodeState) (ok bool, ndev int, logs []string, why string) {
	ifs := findInterfaces(r.env, s.node.ipIfs(s.nodes[0]), 16)
	if len(ifs) == 0 {
		return false, 0, []string{"NET/Socket : no interface found"}, "no usable IP interface" + ifnameNote(r.env)
	}
	var line strings.Builder
	for i, f := range ifs {
		fmt.Fprintf(&line, " [%d]%s:%s<0>", i, f.name, f.addr)
	}
	if v := r.env["NCCL_SOCKET_IFNAME"]; len(v) > 1 {
		logs = append(logs, "NCCL_SOCKET_IFNAME set by environment to "+v)
	}
	return true, len(ifs), append(logs, "NET/Socket : Using"+line.String()), fmt.Sprintf("%d interface(s)", len(ifs))
}

func ifnameNote(env Env) string {
	if v := env["NCCL_SOCKET_IFNAME"]; v != "" {
		return " matching NCCL_SOCKET_IFNAME=" + v
	}
	return ""
}

// pluginInit is an external net plugin's init() and devices(). An init
// that succeeds has added the plugin's SetEnv variables to env where they
// were unset: NCCL reads them after ncclNetInit (NCCL_PROTO in
// ncclTopoTuneModel), so they act as if the job had set them.
func pluginInit(l *Library, nd *Node, env Env) (ok bool, ndev int, logs []string, why string) {
	nb := l.Net
	if nb == nil {
		nb = &NetBackend{Name: l.Base(), Devices: 1}
	}
	logs = append(logs, nb.InitLog...)
	if nb.InitError != "" {
		return false, 0, logs, "init() failed: " + nb.InitError
	}
	for _, e := range nb.SetEnv {
		if cur, set := env.Lookup(e.Name); set {
			if e.Kept != "" {
				logs = append(logs, strings.ReplaceAll(e.Kept, "%s", cur))
			}
			continue
		}
		env[e.Name] = e.Value
		if e.Log != "" {
			logs = append(logs, e.Log)
		}
	}
	ndev = nb.Devices
	if ndev < 0 {
		ndev = activeNICs(nd)
		if ndev == 0 && nb.IBBased { // the IB-based plugin prints NCCL's own line
			logs = append(logs, "NET/IB : No device found.")
		}
	}
	if ndev <= 0 {
		return false, ndev, logs, "devices() reports 0"
	}
	return true, ndev, logs, fmt.Sprintf("devices() reports %d", ndev)
}

func activeNICs(nd *Node) int {
	n := 0
	for _, x := range nd.NICs {
		if x.Active {
			n++
		}
	}
	return n
}

// collNetInit is the CollNet object's init() and devices().
func collNetInit(l *Library, nd *Node) (ok bool, ndev int, why string) {
	cn := l.CollNet
	if cn == nil {
		cn = &CollNetBackend{Devices: 1}
	}
	if cn.InitError != "" {
		return false, 0, "CollNet init() failed: " + cn.InitError
	}
	ndev = cn.Devices
	if ndev < 0 {
		ndev = activeNICs(nd)
	}
	if ndev <= 0 {
		return false, ndev, "CollNet devices() reports 0"
	}
	return true, ndev, fmt.Sprintf("CollNet devices() reports %d", ndev)
}

// netSelect is the candidate walk of ncclNetInit shared by G-NET-STATE-1's
// variants: external plugin(s) first, then IB, then Socket; a candidate is
// used when it initialises with devices, its name matches NCCL_NET (before
// or after init, per release) and its device type is accepted.
type netSelectOpts struct {
	filterBeforeInit bool // 2.28.7+: NCCL_NET filters before init
	ibUsingOnZero    bool // 2.28: "NET/IB : Using ; OOB" even with no device
	initLog          bool // 2.28: "Initialized NET plugin" / "Failed to initialize NET plugin"
}

func (r *initRun) netSelect(o netSelectOpts) {
	s := r.cur
	netName, hasName := r.env.Lookup("NCCL_NET")
	var cited string // "NCCL_NET=IB" or "config netName=IB"
	if hasName {
		cited = r.comm.setting("NCCL_NET").String()
	}
	var cands []*netCand
	for _, pe := range s.libs {
		if pe.lib != nil && pe.netABI > 0 {
			cands = append(cands, &netCand{name: pluginNetNameAt(r.rs, pe.lib, pe.netABI, r.env), external: pe.lib, abi: pe.netABI})
		}
	}
	if len(s.libs) == 0 && s.lib != nil && s.netABI > 0 { // 2.22: one slot
		cands = append(cands, &netCand{name: pluginNetNameAt(r.rs, s.lib, s.netABI, r.env), external: s.lib, abi: s.netABI})
	}
	cands = append(cands, &netCand{name: "IB"}, &netCand{name: "Socket"})
	s.nets = nil
	for _, c := range cands {
		matches := !hasName || strings.EqualFold(netName, c.name)
		if o.filterBeforeInit && !matches {
			c.why = "name does not match " + cited + ": not initialised"
			s.nets = append(s.nets, c)
			continue
		}
		var ok bool
		var logs []string
		switch {
		case c.external != nil:
			ok, c.devices, logs, c.why = pluginInit(c.external, s.node, r.env)
			if o.initLog {
				if ok {
					logs = append(logs, "Initialized NET plugin "+c.name)
				} else {
					logs = append(logs, "Failed to initialize NET plugin "+c.name)
				}
			}
		case c.name == "IB":
			ok, c.devices, logs, c.why = r.ibInit(s, o.ibUsingOnZero)
			if o.initLog && ok && c.devices > 0 {
				logs = append(logs, "Initialized NET plugin IB")
			} else if o.initLog {
				logs = append(logs, "Failed to initialize NET plugin IB")
			}
		default:
			ok, c.devices, logs, c.why = r.socketInit(s)
			if o.initLog {
				if ok {
					logs = append(logs, "Initialized NET plugin Socket")
				} else {
					logs = append(logs, "Failed to initialize NET plugin Socket")
				}
			}
		}
		c.enabled = ok && c.devices > 0
		s.nets = append(s.nets, c)
		r.netLogs(c, logs)
		if !c.enabled {
			continue
		}
		if !matches {
			c.why += "; name does not match " + cited
			continue
		}
		// netDeviceType exists from net ABI v7; an older plugin's adapter
		// reports a host network.
		if c.external != nil && c.abi >= 7 {
			if ok, why := deviceVersionOK(c.external); !ok {
				c.why += "; " + why
				c.enabled = false
				continue
			}
		}
		s.chosen = c
		if c.external != nil {
			if s.collNetABI > 0 {
				s.collNetOK, s.collNetDevs, _ = collNetInit(c.external, s.node)
			}
		}
		return
	}
}

// netLogs keeps per-candidate init lines for the IB/Socket/STATE verdicts.
func (r *initRun) netLogs(c *netCand, logs []string) { c.logs = logs }

// deviceVersionOK is ncclNetCheckDeviceVersion on device 0.
func deviceVersionOK(l *Library) (bool, string) {
	nb := l.Net
	if nb == nil || nb.DeviceType == "" || nb.DeviceType == "host" {
		return true, "host network device"
	}
	if nb.DeviceType == "unpack" {
		if nb.DeviceVersion == 7 {
			return true, "NCCL_NET_DEVICE_UNPACK version 7"
		}
		return false, fmt.Sprintf("NCCL_DEVICE_UNPACK plugin has incompatible version %d, this NCCL build is compatible with 7, not using it", nb.DeviceVersion)
	}
	return false, "Unknown device code index"
}

// netState is G-NET-STATE-1: the candidate walk; it reports the plugin's
// state (the internal networks have their own rules).
func netState(ref Ref, doc string, o netSelectOpts) *Rule {
	return &Rule{
		ID: "G-NET-STATE-1", Layer: LayerDevice, Cap: CapNetPlugin, Title: "network usable: init and devices > 0",
		Doc: doc, Ref: ref, node: true,
		Logs: []string{"Initialized NET plugin %s", "Failed to initialize NET plugin %s"},
		init: func(r *initRun) {
			r.netSelect(o)
			s := r.cur
			for _, c := range s.nets {
				if c.external == nil {
					continue
				}
				out, lvl := Fail, Level(0)
				if c.enabled {
					out, lvl = Pass, LevelUsable
				}
				r.emit(Verdict{Outcome: out, Level: lvl, Why: c.name + ": " + c.why, Log: c.logs,
					Facts: []Fact{F("plugin", c.external.Path), F("devices", c.devices)}})
				return
			}
			r.emit(Verdict{Outcome: Skip, Why: "no external plugin accepted: only the internal networks are candidates"})
		},
	}
}

// internalNet reports the IB or Socket candidate of the walk.
func internalNet(id RuleID, name string, cap Capability, ref Ref, doc string, logs []string) *Rule {
	return &Rule{
		ID: id, Layer: LayerDevice, Cap: cap, Title: name + " transport usable",
		Doc: doc, Ref: ref, Logs: logs, node: true,
		init: func(r *initRun) {
			for _, c := range r.cur.nets {
				if c.name != name || c.external != nil {
					continue
				}
				if c.why == "" {
					break
				}
				out, lvl := Fail, Level(0)
				if c.enabled {
					out, lvl = Pass, LevelUsable
				}
				r.emit(Verdict{Outcome: out, Level: lvl, Why: c.why, Log: c.logs, Facts: []Fact{F("devices", c.devices)}})
				return
			}
			r.emit(Verdict{Outcome: Skip, Why: "not initialised: an earlier network was chosen"})
		},
	}
}

// netChoose is G-NET-SEL-1: the network the communicator uses.
func netChoose(ref Ref, doc string, failLog string, assignLog bool) *Rule {
	return &Rule{
		ID: "G-NET-SEL-1", Layer: LayerDevice, Cap: CapNetPlugin, Title: "network choice (NCCL_NET)",
		Doc: doc, Ref: ref, node: true,
		Logs: []string{"Using network %s", "Assigned NET plugin %s to comm", failLog},
		init: func(r *initRun) {
			s := r.cur
			facts := []Fact{r.comm.setting("NCCL_NET")}
			if s.chosen == nil {
				name := r.env["NCCL_NET"]
				msg := strings.Replace(failLog, "%s", name, 1)
				r.emit(Verdict{Outcome: Fail, Why: "no network initialised with devices and matched " + facts[0].Name + ": communicator init fails with ncclInvalidUsage",
					Facts: facts, Log: []string{msg}})
				r.fail(InvalidUsage, msg)
				return
			}
			var logs []string
			if assignLog {
				logs = append(logs, "Assigned NET plugin "+s.chosen.name+" to comm")
			}
			logs = append(logs, "Using network "+s.chosen.name)
			if s.nodes[0] == 0 {
				r.comm.Net = s.chosen.name
				r.comm.NetVia = netVia(s.chosen.name, s.chosen.external)
			}
			v := Verdict{Outcome: Pass, Why: "using network " + s.chosen.name, Facts: facts, Log: logs}
			if s.chosen.external != nil {
				v.Level = LevelCandidate
			} else {
				v.Cap = CapIB
				if s.chosen.name == "IB" {
					v.Level = LevelCandidate
				} else {
					v.Cap = "" // Socket: no capability to raise
				}
			}
			r.emit(v)
		},
	}
}

var netDevVersion = &Rule{
	ID: "G-NET-ABI-2", Layer: LayerABI, Cap: CapNetPlugin, Title: "network device-offload version",
	Doc: `getProperties(dev 0) of the candidate: netDeviceType HOST is accepted; UNPACK only with netDeviceVersion 7; any other type is rejected and the next network is tried.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "ncclNetCheckDeviceVersion"},
	Logs: []string{"Using NCCL_NET_DEVICE_UNPACK net plugin version %d",
		"NCCL_DEVICE_UNPACK plugin has incompatible version %d, this NCCL build is compatible with %d, not using it", "Unknown device code index"},
	node: true,
	init: func(r *initRun) {
		for _, c := range r.cur.nets {
			if c.external == nil || !strings.Contains(c.why, "devices()") {
				continue
			}
			ok, why := deviceVersionOK(c.external)
			out := Pass
			var logs []string
			if !ok {
				out = Fail
				logs = []string{why}
			} else if strings.HasPrefix(why, "NCCL_NET_DEVICE_UNPACK") {
				logs = []string{"Using NCCL_NET_DEVICE_UNPACK net plugin version 7"}
			}
			r.emit(Verdict{Outcome: out, Why: why, Log: logs})
			return
		}
		r.emit(Verdict{Outcome: Skip, Why: "no external network reached the device check"})
	},
}

var collNetAttach = &Rule{
	ID: "G-NET-SEL-2", Layer: LayerDevice, Cap: CapCollNet, Title: "CollNet attaches to the chosen plugin only",
	Doc:  `comm->ncclCollNet is set only if the chosen network is the external plugin and that plugin's CollNet initialised with devices > 0. Choosing IB or Socket (by NCCL_NET or by fallback) means no CollNet.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "ncclNetInit"},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		switch {
		case s.chosen == nil:
			r.emit(Verdict{Outcome: Skip, Why: "no network chosen"})
		case s.chosen.external == nil:
			r.emit(Verdict{Outcome: Fail, Why: "the chosen network " + s.chosen.name + " is internal: internal networks provide no CollNet"})
		case s.collNetABI == 0:
			r.emit(Verdict{Outcome: Fail, Why: "the plugin exports no accepted CollNet symbol"})
		default:
			ok, n, why := collNetInit(s.chosen.external, s.node)
			s.collNetOK, s.collNetDevs = ok, n
			if !ok {
				r.emit(Verdict{Outcome: Fail, Why: why + ": no CollNet object", Facts: []Fact{F("collnet_devices", n)}})
				return
			}
			if s.nodes[0] == 0 {
				r.comm.CollNetAttached = true
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelUsable, Why: why + ": CollNet attached", Facts: []Fact{F("collnet_devices", n)}})
		}
	},
}

// netPluginInfo fills Comm.NetPlugin after the network rules.
func (r *initRun) netPluginInfo() {
	s := r.nodes[0]
	if s.lib == nil && len(s.libTried) == 0 {
		return
	}
	info := &NetPluginInfo{}
	if pe := firstOpenedEntry(s); pe != nil {
		info.Path, info.OpenedAs, info.Found = pe.Path, s.libName, true
	}
	info.NetABI, info.CollNetABI = s.netABI, s.collNetABI
	if s.lib != nil {
		info.Name = pluginNetNameAt(r.rs, s.lib, s.netABI, r.env)
	}
	r.comm.NetPlugin = info
}

func firstOpenedEntry(s *nodeState) *Library {
	if s.lib != nil {
		return s.lib
	}
	for _, pe := range s.libs {
		if pe.lib != nil {
			return pe.lib
		}
	}
	return nil
}

// mnnvlClique is what G-MNNVL-1 reads of the fabric: the first node's
// NVLink clique, the GPUs of the nodes in it (clique.size), the GPUs of
// the nodes in its fabric cluster (nvlDomainSize, every clique of the
// cluster), and whether the fabric state is complete (cuMem, fabric
// handles on every GPU, and an NVSwitch fabric).
func mnnvlClique(c *Comm) (clique mnnvlCliqueOf, size, domain int, fabric bool) {
	clique = c.System.Nodes[0].mnnvlClique()
	for i := range c.System.Nodes {
		nd := &c.System.Nodes[i]
		if clique.cluster == "" || nd.MNNVLClique != clique.cluster {
			continue
		}
		domain += len(nd.GPUs)
		if nd.MNNVLCliqueID == clique.id {
			size += len(nd.GPUs)
		}
	}
	fabric = c.System.Nodes[0].Driver.CuMem && c.System.Nodes[0].NVSwitch
	for _, g := range c.System.Nodes[0].GPUs {
		fabric = fabric && g.FabricHandle
	}
	return clique, size, domain, fabric
}

// mnnvl is G-MNNVL-1.
func mnnvlRule(ref Ref, doc string, multiNodeOnly bool) *Rule {
	return mnnvlRuleWith(ref, doc, mnnvlOpts{multiNodeOnly: multiNodeOnly})
}

// mnnvlRuleUserP2P is G-MNNVL-1 of initTransportsRank from 2.27.3: with
// NCCL_MNNVL_ENABLE auto (not 1), a user P2P level of LOC
// (ncclGetUserP2pLevel: NCCL_P2P_DISABLE=1, NCCL_P2P_LEVEL=LOC or 0) skips
// ncclMnnvlCheck, so MNNVL stays off.
func mnnvlRuleUserP2P(ref Ref, doc string) *Rule {
	return mnnvlRuleWith(ref, doc, mnnvlOpts{userP2P: true})
}

// mnnvlRuleCrossClique is G-MNNVL-1 from 2.30.3: ncclMnnvlCheck also
// counts the NVL domain (the ranks of the cluster UUID, every clique) and
// enables MNNVL when either the clique or the domain holds more than one
// rank; initTransportsRank then turns p2pCrossClique on with
// NCCL_MNNVL_CROSS_CLIQUE when the domain holds more than the clique.
func mnnvlRuleCrossClique(ref Ref, doc string) *Rule {
	r := mnnvlRuleWith(ref, doc, mnnvlOpts{userP2P: true, crossClique: true})
	r.Logs = []string{"MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d nvlDomainSize %d",
		"comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",
		crossCliqueLine}
	return r
}

// crossCliqueLine is initTransportsRank's INFO when p2pCrossClique is on.
// Ref: v2.30.3-1 src/init.cc initTransportsRank (v2.30.7-1 likewise)
const crossCliqueLine = "Cross-clique P2P enabled: nvlDomainSize=%d cliqueSize=%d"

// mnnvlOpts are the release switches of G-MNNVL-1.
type mnnvlOpts struct {
	multiNodeOnly bool // one node is never checked, NCCL_MNNVL_ENABLE=1 included
	forcedFails   bool // NCCL_MNNVL_ENABLE=1 without MNNVL fails init
	userP2P       bool // a user P2P level of LOC skips the auto check
	crossClique   bool // nvlDomainSize and NCCL_MNNVL_CROSS_CLIQUE (2.30.3+)
}

// userP2PLevelLOC is ncclGetUserP2pLevel returning 0 (PATH_LOC): the level
// NCCL_P2P_DISABLE=1 sets, or NCCL_P2P_LEVEL=LOC (or old-style 0).
func userP2PLevelLOC(env Env) (bool, []Fact) {
	o := TopoOptions(env)
	level := "unset"
	switch {
	case o.P2PDisable:
		level = "LOC (NCCL_P2P_DISABLE=1)"
	case o.P2PLevelSet:
		level = o.P2PLevel.String()
	}
	loc := o.P2PDisable || (o.P2PLevelSet && o.P2PLevel == topo.PathLOC)
	return loc, []Fact{F("user_p2p_level", level)}
}

// mnnvlRuleForced is G-MNNVL-1 of checkMNNVL (2.21.5–2.24.3):
// NCCL_MNNVL_ENABLE=1 on several hosts without a working MNNVL fails
// communicator init with ncclSystemError.
func mnnvlRuleForced(ref Ref, doc string) *Rule {
	r := mnnvlRuleWith(ref, doc, mnnvlOpts{multiNodeOnly: true, forcedFails: true})
	r.Logs = append(r.Logs, mnnvlForcedWarn)
	return r
}

const mnnvlForcedWarn = "MNNVL is not supported on this system"

func mnnvlRuleWith(ref Ref, doc string, o mnnvlOpts) *Rule {
	return &Rule{
		ID: "G-MNNVL-1", Layer: LayerDevice, Title: "multi-node NVLink",
		Doc: doc, Ref: ref,
		Logs: []string{"MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d", "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d"},
		init: func(r *initRun) {
			c := r.comm
			r.netPluginInfo()
			param := r.param("NCCL_MNNVL_ENABLE")
			if c.NNodes == 1 && (o.multiNodeOnly || param != 1) {
				r.emit(Verdict{Outcome: Skip, Why: "single node: MNNVL is not checked", Facts: []Fact{F("nNodes", 1)}})
				return
			}
			if param == 0 {
				r.emit(Verdict{Outcome: Fail, Why: "NCCL_MNNVL_ENABLE=0"})
				return
			}
			if o.userP2P && param != 1 {
				if loc, facts := userP2PLevelLOC(r.env); loc {
					r.emit(Verdict{Outcome: Fail, Why: "the user P2P level is LOC and NCCL_MNNVL_ENABLE is not 1: MNNVL is not checked (off)", Facts: facts})
					return
				}
			}
			clique, size, domain, fabric := mnnvlClique(c)
			if !o.crossClique {
				domain = size // before 2.30.3 only the clique is counted
			}
			facts := []Fact{F("cliqueSize", size)}
			if o.crossClique {
				facts = append(facts, F("nvlDomainSize", domain))
			}
			switch {
			case (!fabric || clique.cluster == "") && o.forcedFails && param == 1:
				r.emit(Verdict{Outcome: Fail, Why: "NCCL_MNNVL_ENABLE=1 without fabric handle support, an NVSwitch fabric or an NVLink clique: communicator init fails",
					Log: []string{mnnvlForcedWarn}})
				r.fail(SystemError, mnnvlForcedWarn)
			case !fabric || clique.cluster == "":
				r.emit(Verdict{Outcome: Fail, Why: "no fabric handle support, no NVSwitch fabric or no NVLink clique: MNNVL off"})
			case size <= 1 && domain <= 1 && (param == 2 || !o.forcedFails):
				// checkMNNVL (2.21.5–2.24.3) takes NCCL_MNNVL_ENABLE=1 as
				// it is; ncclMnnvlCheck (2.25.1+) returns before enabling
				why := "the clique holds one rank only: MNNVL off"
				if o.crossClique {
					why = "the clique and the NVL domain hold one rank only: MNNVL off"
				}
				r.emit(Verdict{Outcome: Fail, Why: why, Facts: facts})
			default:
				c.MNNVL = true
				line := fmt.Sprintf("MNNVL 1 cliqueId %s cliqueSize %d cliqueRank 0", clique, size)
				why := fmt.Sprintf("NVLink clique %s of %d GPUs: MNNVL on", clique, size)
				var logs []string
				if o.crossClique {
					c.NVLDomainSize = domain
					line += fmt.Sprintf(" nvlDomainSize %d", domain)
					logs = append(logs, line)
					cross := r.param("NCCL_MNNVL_CROSS_CLIQUE")
					facts = append(facts, F("NCCL_MNNVL_CROSS_CLIQUE", cross))
					switch {
					case domain <= size:
						why += fmt.Sprintf("; the NVL domain is the clique (%d ranks): no cross-clique P2P", domain)
					case cross == 0:
						why += fmt.Sprintf("; the NVL domain holds %d ranks in other cliques, separate nodes over the network (NCCL_MNNVL_CROSS_CLIQUE=0)", domain-size)
					default:
						c.CrossClique = true
						why += fmt.Sprintf("; cross-clique P2P: the %d ranks of the other cliques of the NVL domain are MNNVL peers over CUDA P2P, still separate nodes, and symmetric kernels are not used", domain-size)
						logs = append(logs, fmt.Sprintf(crossCliqueLine, domain, size))
					}
				} else {
					logs = append(logs, line)
				}
				r.emit(Verdict{Outcome: Pass, Why: why, Facts: facts, Log: logs})
			}
		},
	}
}

// netLibOthers is G-NET-LIB-3 (2.27.3+): once an external plugin is
// assigned to a communicator, the other external entries are disabled for
// the rest of the process.
var netLibOthers = &Rule{
	ID: "G-NET-LIB-3", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "several external plugins",
	Doc:  `NCCL_NET_PLUGIN entries are tried in list order before IB and Socket; when one external entry is assigned to a communicator, every other external entry is disabled for the rest of the process.`,
	Ref:  Ref{Tag: "v2.28.3-1", File: "src/plugin/net.cc", Func: "ncclNetPluginDisableOtherExternal"},
	Logs: []string{"Disabling external plugins: %s"},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		if s.chosen == nil || s.chosen.external == nil {
			r.emit(Verdict{Outcome: Skip, Why: "no external plugin assigned"})
			return
		}
		var others []string
		for _, pe := range s.libs {
			if pe.lib != s.chosen.external {
				others = append(others, pe.name)
			}
		}
		if len(others) == 0 {
			r.emit(Verdict{Outcome: Skip, Why: "one external plugin only"})
			return
		}
		r.emit(Verdict{Outcome: Info, Why: s.chosen.name + " assigned: " + strings.Join(others, ", ") + " disabled",
			Log: []string{"Disabling external plugins: " + strings.Join(others, ", ")}})
	},
}
