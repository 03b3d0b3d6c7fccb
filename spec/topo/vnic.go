package topo

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/nccl"
)

// FusionError is NCCL failing communicator init while it fuses NICs: the
// result ncclTopoGetSystem returns and the WARN it prints.
type FusionError struct {
	Result nccl.Result
	Msg    string
}

func (e *FusionError) Error() string { return e.Msg }

func fusionErr(r nccl.Result, format string, args ...any) error {
	return &FusionError{Result: r, Msg: fmt.Sprintf(format, args...)}
}

// NIC port fusion (G-TOPO-VNIC-1): from 2.24.3 NCCL asks a network that can
// make virtual devices (its makeVDevice is set: the internal IB; Socket and
// plugins below net v9 have none) to fuse the physical ports of one NIC, or
// of NICs within NCCL_NET_MERGE_LEVEL of each other (default PORT), into one
// virtual NIC, and builds its topology from those (v2.24.3-1
// src/graph/topo.cc ncclTopoProcessNet, ncclTopoMakeVNics, ncclTopoAutoMerge,
// ncclTopoForceMerge, ncclTopoGetVNicParent; src/transport/net_ib.cc
// ncclIbMakeVDeviceInternal). A topology dump lists the physical ports only
// (the dump is written from the physical pass), so the model fuses the XML it
// is given, as NCCL does on NCCL_TOPO_FILE. Params.NetFusion and the
// NetFusion* switches carry the release's variant; Params.NetIBPortMerge the
// IB network's own merge of 2.20.3–2.23.4 (ibPorts).

// NetFusion is which NET groups a release turns into virtual NICs.
type NetFusion int

const (
	// NetFusionNone (up to 2.23.4): no virtual NICs (2.20.3–2.23.4 the IB
	// network merges ports itself: Params.NetIBPortMerge).
	NetFusionNone NetFusion = iota
	// NetFusionAll (2.24.3–2.26.6): every group becomes a virtual NIC, a
	// group of one too. A group of one keeps its node (the name is the
	// port's) with the virtual device's number, nPhysical+k.
	NetFusionAll
	// NetFusionMerged (2.27.3+): groups of one are skipped
	// (ncclTopoMakeVnic "Don't make vNics of size 1"); only fused ports
	// leave the topology.
	NetFusionMerged
)

func (f NetFusion) String() string {
	switch f {
	case NetFusionNone:
		return "none"
	case NetFusionAll:
		return "every-group"
	case NetFusionMerged:
		return "merged-groups"
	}
	return fmt.Sprintf("NetFusion(%d)", int(f))
}

// NetIf is one item of an NCCL interface list (NCCL_IB_HCA,
// NCCL_SOCKET_IFNAME, a NCCL_NET_FORCE_MERGE group): a name and a port,
// rail and plane, -1 (NCCL_NET_ID_UNDEF) for any or none.
type NetIf struct {
	Name              string
	Port, Rail, Plane int
}

// ParseIfList is parseStringList (src/misc/utils.cc): items separated by
// ',', empty names skipped. Up to 2.30.4 an optional ":port" is the
// item's leading digits (none reads 0) and the rest is skipped; with
// railPlane (Params.IfListRailPlane, 2.30.7) the item is
// "name[:port[:rail[:plane]]]", each field atoi'd, -1 when empty or
// absent. A leading '^' (exclude) or '=' (exact) is the caller's to strip.
func ParseIfList(s string, railPlane bool) []NetIf {
	var out []NetIf
	for _, item := range strings.Split(s, ",") {
		e := NetIf{Port: -1, Rail: -1, Plane: -1}
		if railPlane {
			f := strings.SplitN(item, ":", 5)
			item = f[0]
			for i, dst := range []*int{&e.Port, &e.Rail, &e.Plane} {
				if i+1 < len(f) && f[i+1] != "" {
					*dst = atoiC(f[i+1])
				}
			}
		} else if i := strings.IndexByte(item, ':'); i >= 0 {
			e.Port = 0
			for _, c := range []byte(item[i+1:]) {
				if c < '0' || c > '9' || e.Port > 1<<20 {
					break
				}
				e.Port = e.Port*10 + int(c-'0')
			}
			item = item[:i]
		}
		if item != "" {
			e.Name = item
			out = append(out, e)
		}
	}
	return out
}

// atoiC is C's atoi on a short field: leading blanks, a sign, the
// digits up to the first other byte (none: 0), bounded.
func atoiC(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' || n > 1<<20 {
			break
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

// netMaxDevsPerNic is the most ports one virtual NIC takes
// (NCCL_NET_MAX_DEVS_PER_NIC 4; 2.30.3 reads 8 for net v12 plugins only,
// and the internal networks report version 0: src/graph/topo.cc
// ncclTopoGetSystem maxDevsPerNic).
const netMaxDevsPerNic = 4

// pciBridgeClass is PCI_BRIDGE_DEVICE_CLASS.
const pciBridgeClass = "0x060400"

// netMergeLevel is kvConvertToInt over nicPathKvList: the first key the
// value starts with (case-sensitive); no match gives the list's end value,
// PATH_LOC, so an unknown level fuses nothing. P2C is in the list from
// 2.27.3, with the path type.
func netMergeLevel(v string, p Params) PathType {
	keys := []struct {
		k string
		t PathType
	}{{"LOC", PathLOC}, {"PORT", PathNVL}, {"PIX", PathPIX}, {"PXB", PathPXB}, {"PXN", PathPXN}, {"PHB", PathPHB}, {"SYS", PathSYS}}
	if slices.Contains(p.PathOrder, PathP2C) {
		keys = append(keys, struct {
			k string
			t PathType
		}{"P2C", PathP2C})
	}
	for _, e := range keys {
		if strings.HasPrefix(v, e.k) {
			return e.t
		}
	}
	return PathLOC
}

// pathPORT is PATH_PORT, defined as PATH_NVL (src/graph/topo.h).
const pathPORT = PathNVL

// fusion is one run of ncclTopoMakeVNics over a host's XML.
type fusion struct {
	p    Params
	o    Options
	x    *XMLNode   // the copy being changed
	phys []*XMLNode // the physical <net> elements in device order
	// vnics are the virtual devices made, in order: physical indexes.
	vnics [][]int
	// merged are the physical devices a virtual NIC of several took.
	merged []bool
	// ib: the pass's network is the internal IB, whose makeVDevice
	// refuses several devices under NCCL_IB_MERGE_NICS=0; a CollNet
	// plugin's is taken to accept every group.
	ib bool
}

// VNic is one virtual device a fusion pass made, as its "TOPO/NET : Made
// vNic %d" line reports it (src/graph/topo.cc ncclTopoMakeVnic): the
// plugin ("net", or "collnet" for the CollNet plugin's pass), the device
// index the plugin gave it and the ports it took.
type VNic struct {
	Plugin string
	Dev    int
	Ports  []string
	// Speed is the ports' summed speed (Mbps), as makeVDevice adds it.
	Speed int64
	// Rail and Plane are the IB's for the device (2.30.7; see
	// IBVDeviceLog): the ports' common rail, else -1; a fused device's
	// plane the virtual bit with a bit per port's plane index.
	Rail, Plane int
}

// Name is the device's name, its ports' joined by '+'.
func (v VNic) Name() string { return strings.Join(v.Ports, "+") }

// Log is the line ncclTopoMakeVnic prints for it (INFO, GRAPH).
func (v VNic) Log() string { return fmt.Sprintf("TOPO/NET : Made vNic %d", v.Dev) }

// IBLog is the line the internal IB's makeVDevice prints for it (INFO,
// NET) just before ncclTopoMakeVnic's; "" when the release's IB prints
// none. A vNic the IB made is one of its virtual devices, so the index is
// the vNic's device number.
func (v VNic) IBLog(p Params) string {
	return IBVDeviceLog(p, v.Dev, v.Name(), v.Speed, len(v.Ports), v.Rail, v.Plane)
}

// ibPlaneVirtBit is NCCL_IB_PLANE_VIRT_BIT (1 << NCCL_IB_PLANE_MAX_INDEX,
// 14), which marks a device fused over several ports.
const ibPlaneVirtBit = 1 << 14

// IBVDeviceLog is "NET/IB : Made virtual device" for a virtual device of
// ndevs ports (src/transport/net_ib.cc ncclIbMakeVDeviceInternal). 2.30.7
// adds its rail and plane: for one port its NCCL_IB_HCA entry's (-1,
// NCCL_NET_ID_UNDEF, when none names one); fused, the ports' rail when
// they share one (else -1) and the virtual bit with each port's plane
// index (IBPlaneIndexes).
func IBVDeviceLog(p Params, dev int, name string, speed int64, ndevs, rail, plane int) string {
	switch p.IBVDeviceLine {
	case IBVDevicePlain:
		return fmt.Sprintf("NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d", dev, name, speed, ndevs)
	case IBVDeviceRailPlane:
		return fmt.Sprintf("NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d rail=%d plane=%d", dev, name, speed, ndevs, rail, plane)
	}
	return ""
}

// IBPlaneMaxIndex is NCCL_IB_PLANE_MAX_INDEX: ncclIbGetPlaneIndex's table
// holds the undefined plane and at most 12 user plane ids.
const IBPlaneMaxIndex = 14

// IBPlaneIndexes are the IB's plane indexes of its ports, in device order
// (ncclIbGetPlaneIndex, called by ncclIbInitDevices after the ports are
// listed): index 0 is the undefined plane (-1), each other plane id takes
// the next index when first seen. A fused device's plane is
// ibPlaneVirtBit with bit 1<<index set for each of its ports. The table
// stores ids as int16_t and compares them with the int id, so an id
// beyond int16 never matches a stored one and takes an index each time.
// bad is the first port whose id NCCL refuses (-1: none) and warn its
// WARN: a 13th user plane id ("NCCL cannot use more than 14 plane IDs.")
// or an id other than -1 with the virtual bit set ("NCCL cannot use a
// plane ID that is %d.", so every other negative id); ncclIbInitDevices
// then fails with ncclInvalidUsage, the ports before it already made
// virtual devices. idx holds the indexes of the ports before bad.
//
// Ref: v2.30.7-1 src/transport/net_ib/init.cc ncclIbGetPlaneIndex,
// ncclIbInitDevices
func IBPlaneIndexes(planes []int) (idx []int, bad int, warn string) {
	seen := []int16{-1}
	idx = make([]int, 0, len(planes))
	for i, pl := range planes {
		j := 0
		for j < len(seen) && int(seen[j]) != pl {
			j++
		}
		if j == len(seen) {
			switch {
			case j == IBPlaneMaxIndex-1:
				return idx, i, fmt.Sprintf("NCCL cannot use more than %d plane IDs.", IBPlaneMaxIndex)
			case pl != -1 && pl&ibPlaneVirtBit != 0:
				return idx, i, fmt.Sprintf("NCCL cannot use a plane ID that is %d.", pl)
			}
			seen = append(seen, int16(pl))
		}
		idx = append(idx, j)
	}
	return idx, -1, ""
}

// FuseNets returns the XML NCCL builds a host's system from once the
// network's virtual NICs are made (see NetFusion): src itself when the
// release fuses nothing or the network makes no virtual devices, else a
// copy with each fused group's ports replaced by one <net> named
// "a+b" with the summed speed, and each port fused into a group of one
// renumbered where the release does so. Errors are NCCL's init failures
// (a force-merge group that does not match, a failed merge before 2.26.2).
func FuseNets(src *XMLNode, p Params, o Options) (*XMLNode, error) {
	x, _, err := FuseNetsLog(src, p, o)
	return x, err
}

// FuseNetsLog is FuseNets that also lists the virtual devices made, in
// the order NCCL makes them: the CollNet plugin's pass first, then the
// network's (ncclTopoGetSystem imports CollNet first so that it has
// precedence).
//
// The CollNet pass (G-TOPO-VNIC-2): with CollNet enabled NCCL runs
// ncclTopoProcessNet for the CollNet plugin too, over its own devices
// (the XML's coll="1" ports), with its makeVDevice (collnet v9+; NULL
// below, and a v9+ plugin may leave it NULL: Options.CollNetVNics).
// Both passes name a vNic by its ports, so a group both make is one
// <net> node, with coll="1". A vNic only the network made has no coll:
// ncclTopoPopulateNics sets it for the CollNet pass alone. What becomes
// of a CollNet port the network fused depends on the release
// (Params.NetFusion, NetFusionPluginTags): see populate.
func FuseNetsLog(src *XMLNode, p Params, o Options) (*XMLNode, []VNic, error) {
	if p.NetFusion == NetFusionNone && p.NetIBPortMerge && o.NetVNics && src != nil {
		f := &fusion{p: p, o: o, x: src.Clone(), ib: true}
		f.collect(f.x)
		sort.SliceStable(f.phys, func(i, j int) bool { return netDevAttr(f.phys[i]) < netDevAttr(f.phys[j]) })
		x, err := f.ibPorts(src)
		return x, nil, err
	}
	if p.NetFusion == NetFusionNone || (!o.NetVNics && !o.CollNetVNics) || src == nil {
		return src, nil, nil
	}
	f := &fusion{p: p, o: o, x: src.Clone(), ib: true}
	f.collect(f.x)
	if len(f.phys) == 0 {
		return src, nil, nil
	}
	sort.SliceStable(f.phys, func(i, j int) bool { return netDevAttr(f.phys[i]) < netDevAttr(f.phys[j]) })
	var coll *fusion
	if o.CollNetVNics {
		coll = &fusion{p: p, o: o, x: f.x}
		for _, n := range f.phys {
			if n.attrIs("coll", "1") {
				coll.phys = append(coll.phys, n)
			}
		}
		if err := coll.merge(); err != nil {
			return nil, nil, err
		}
	}
	f.merged = make([]bool, len(f.phys))
	if o.NetVNics {
		if err := f.merge(); err != nil {
			return nil, nil, err
		}
	}
	if len(f.vnics) == 0 && (coll == nil || len(coll.vnics) == 0) {
		return src, nil, nil
	}
	made, err := f.populate(coll)
	if err != nil {
		return nil, nil, err
	}
	return f.x, made, nil
}

// merge is ncclTopoMakeVNics for one plugin's devices: NCCL_NET_FORCE_MERGE
// groups, then the automatic merge.
func (f *fusion) merge() error {
	if len(f.phys) == 0 {
		return nil
	}
	f.merged = make([]bool, len(f.phys))
	placed := make([]bool, len(f.phys))
	if f.o.NetForceMerge != "" {
		if err := f.forceMerge(placed); err != nil {
			return err
		}
	}
	return f.autoMerge(placed)
}

// ibMaxDevsPerNic is NCCL_IB_MAX_DEVS_PER_NIC in 2.20.3–2.23.4.
const ibMaxDevsPerNic = 2

// ibPorts is the internal IB's port merge of 2.20.3–2.23.4
// (Params.NetIBPortMerge): ports with the same PCI path (the function digit
// zeroed: the XML's one <pci>), system image guid and link layer, two at
// most, become one device "a+b" with the summed speed, devices numbered in
// that merged order (src/transport/net_ib.cc ncclIbInit,
// ncclIbGetProperties; NCCL_IB_MERGE_NICS=0 turns it off). Each port
// joins the first merged device, in creation order, with room left whose
// first port has its PCI device and guid (ncclIbFindMatchingDev); the XML
// cannot tell link layers apart, so they are taken as equal. A merged
// device's <net> goes into its first port's <nic> (ncclTopoFillNet from
// the first port's PCI path) and the ports leave (no keep); every device
// takes its merged index as dev.
func (f *fusion) ibPorts(src *XMLNode) (*XMLNode, error) {
	var groups [][]int
	for d, n := range f.phys {
		g := len(groups)
		for k, devs := range groups {
			first := f.phys[devs[0]]
			if !f.o.IBMergeNicsOff && len(devs) < ibMaxDevsPerNic && first.parent == n.parent &&
				attrInt(first, "guid") == attrInt(n, "guid") {
				g = k
				break
			}
		}
		if g == len(groups) {
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], d)
	}
	if len(groups) == len(f.phys) {
		return src, nil
	}
	for k, devs := range groups {
		if len(devs) == 1 {
			f.phys[devs[0]].SetAttr("dev", fmt.Sprint(k))
			continue
		}
		net := f.addFused(f.phys[devs[0]].parent, devs, k)
		if c, ok := f.phys[devs[0]].Attr("coll"); ok {
			// the merged device is the only one the IB lists, to every plugin
			net.SetAttr("coll", c)
		}
		for _, d := range devs {
			trimNode(f.phys[d])
		}
	}
	return f.x, nil
}

// addFused writes the fused device of devs into nic: "a+b", the summed
// speed, the other properties the first port's (ncclIbGetProperties); no
// coll, which only the CollNet plugin's pass sets (ncclTopoPopulateNics).
func (f *fusion) addFused(nic *XMLNode, devs []int, dev int) *XMLNode {
	var names []string
	speed := int64(0)
	for _, d := range devs {
		name, _ := f.phys[d].Attr("name")
		names = append(names, name)
		speed += attrInt(f.phys[d], "speed")
	}
	net := nic.Add("net", XMLAttr{"name", strings.Join(names, "+")}, XMLAttr{"dev", fmt.Sprint(dev)})
	for _, a := range f.phys[devs[0]].Attrs {
		switch a.Key {
		case "name", "dev", "keep", "coll":
		default:
			net.SetAttr(a.Key, a.Value)
		}
	}
	net.SetAttr("speed", fmt.Sprint(speed))
	return net
}

// collect lists the <net> elements with a dev attribute (the ones
// ncclTopoAddNic reads) under <nic> elements.
func (f *fusion) collect(n *XMLNode) {
	for _, c := range n.Subs {
		if c.Name == "net" && n.Name == "nic" {
			if _, ok := c.Attr("dev"); ok {
				f.phys = append(f.phys, c)
			}
			continue
		}
		f.collect(c)
	}
}

func netDevAttr(n *XMLNode) int64 {
	v, _ := n.Attr("dev")
	d, err := parseCInt(v)
	if err != nil {
		return 1 << 40
	}
	return d
}

func attrInt(n *XMLNode, key string) int64 {
	v, ok := n.Attr(key)
	if !ok {
		return 0
	}
	d, err := parseCInt(v)
	if err != nil {
		return 0
	}
	return d
}

// netPort is the device's port property (-1 when absent: matchPort then
// matches any).
func netPort(n *XMLNode) int {
	if _, ok := n.Attr("port"); !ok {
		return -1
	}
	return int(attrInt(n, "port"))
}

// makeVnic is ncclTopoMakeVnic with the IB network's makeVDevice: false
// when the network refuses the group (NCCL_IB_MERGE_NICS=0 and more than
// one device) and the release lets the caller go on (2.26.2+).
func (f *fusion) makeVnic(devs []int) (bool, error) {
	if len(devs) == 1 && f.p.NetFusion == NetFusionMerged {
		return true, nil
	}
	if len(devs) > netMaxDevsPerNic {
		return false, fusionErr(nccl.InternalError, "TOPO/NET : Tried to merge too many NICs. %d > %d", len(devs), netMaxDevsPerNic)
	}
	if f.ib && f.o.IBMergeNicsOff && len(devs) > 1 {
		if !f.p.NetFusionRetry {
			return false, fusionErr(nccl.InvalidUsage, "TOPO/NET : Tried merging multiple devices together and failed. Try setting NCCL_NET_MERGE_LEVEL=LOC (NET/IB : Trying to merge multiple devices together when NCCL_IB_MERGE_NICS=0)")
		}
		return false, nil
	}
	f.vnics = append(f.vnics, devs)
	if len(devs) > 1 {
		for _, d := range devs {
			f.merged[d] = true
		}
	}
	return true, nil
}

// forceMerge is ncclTopoForceMerge: each ';' group of NCCL_NET_FORCE_MERGE
// names its devices exactly (name, optional :port).
func (f *fusion) forceMerge(placed []bool) error {
	for _, group := range strings.Split(f.o.NetForceMerge, ";") {
		if group == "" {
			continue // strtok_r skips empty tokens
		}
		ifs := ParseIfList(group, f.p.IfListRailPlane)
		if len(ifs) == 0 {
			return fmt.Errorf("NCCL_NET_FORCE_MERGE group %q names no device: NCCL logs \"Couldn't parse substring\" and loops on the same group forever (ncclTopoForceMerge), a hang gatesim does not describe; expected name[:port] items separated by ','", group)
		}
		ifs = ifs[:min(len(ifs), netMaxDevsPerNic)]
		var devs []int
		for d, n := range f.phys {
			name, _ := n.Attr("name")
			port := netPort(n)
			for _, u := range ifs {
				if u.Name == name && (port == -1 || u.Port == -1 || u.Port == port) {
					devs = append(devs, d)
					break
				}
			}
		}
		if len(devs) != len(ifs) {
			return fusionErr(nccl.InvalidUsage, "TOPO/NET : Only matched %d devices, %d requested from %s", len(devs), len(ifs), group)
		}
		ok, err := f.makeVnic(devs)
		if err != nil {
			return err
		}
		if !ok {
			return fusionErr(nccl.InvalidUsage, "TOPO/NET : Could not force merge NICs %s. Please specify a valid NCCL_NET_FORCE_MERGE string.", group)
		}
		for _, d := range devs {
			placed[d] = true
		}
	}
	return nil
}

// autoMerge is ncclTopoAutoMerge: the first unplaced device takes every
// unplaced device within the merge level, up to the per-NIC maximum.
func (f *fusion) autoMerge(placed []bool) error {
	n := len(f.phys)
	level := pathPORT
	if f.o.NetMergeLevelSet {
		level = netMergeLevel(f.o.NetMergeLevel, f.p)
	}
	paths := make([]PathType, n*n)
	for i := range n {
		for j := range n {
			paths[i*n+j], _ = f.xmlPath([]*XMLNode{f.phys[i], f.phys[j]})
		}
	}
	for i := 0; i < n; i++ {
		if placed[i] {
			continue
		}
		devs := []int{i}
		placed[i] = true
		for j := range n {
			if paths[i*n+j] <= level && !placed[j] && j != i && f.sameRail(i, j) {
				devs = append(devs, j)
				placed[j] = true
			}
			if len(devs) == netMaxDevsPerNic {
				break
			}
		}
		ok, err := f.makeVnic(devs)
		if err != nil {
			return err
		}
		if !ok {
			// 2.26.2+: the group goes back apart, its devices at PATH_DIS
			// from the root, and the walk restarts; NCCL sets i = 0 before
			// the loop's i++, so device 0 is not looked at again.
			placed[i] = false
			for _, d := range devs[1:] {
				placed[d] = false
				paths[i*n+d], paths[d*n+i] = PathDIS, PathDIS
			}
			i = 0
		}
	}
	return nil
}

// sameRail is NCCL_NET_MERGE_POLICY=RAIL (2.30.7): both devices report the
// same rail (the rail attribute of a 2.30.7 dump); unknown rails never
// fuse.
func (f *fusion) sameRail(i, j int) bool {
	if !f.p.NetFusionAggregate || !f.o.NetMergeRail {
		return true
	}
	a, okA := f.phys[i].Attr("rail")
	b, okB := f.phys[j].Attr("rail")
	return okA && okB && a == b && a != "-1"
}

// xmlPath is ncclTopoGetPath over XML elements: the common ancestor of the
// nodes and the path class it gives (PORT for the ports of one NIC, or PCI
// functions of one device, PIX/PXB under a PCI switch, PHB under a CPU,
// SYS across CPUs); from 2.27.3 the returned parent is the first PCI
// element at or above the common one (ncclFindFirstPciParent).
func (f *fusion) xmlPath(nodes []*XMLNode) (PathType, *XMLNode) {
	if len(nodes) == 1 {
		return PathLOC, f.firstPCIParent(nodes[0])
	}
	stacks := make([][]*XMLNode, len(nodes))
	for i, n := range nodes {
		for t := n; t != nil; t = t.parent {
			stacks[i] = append(stacks[i], t)
			if t.Name == "system" {
				break
			}
		}
	}
	top := func(i int) *XMLNode { return stacks[i][len(stacks[i])-1] }
	var common *XMLNode
	for same := true; same && len(stacks[0]) > 0; {
		t := top(0)
		for i := 1; i < len(nodes); i++ {
			if len(stacks[i]) == 0 {
				same = false
				break
			}
			same = same && t == top(i)
		}
		if same {
			common = t
			for i := range stacks {
				stacks[i] = stacks[i][:len(stacks[i])-1]
			}
			continue
		}
		// PCI functions of one device: bus ids equal but for the last
		// character.
		multiPort := false
		if tb, ok := t.Attr("busid"); ok {
			multiPort = true
			for i := 1; i < len(nodes) && multiPort; i++ {
				if len(stacks[i]) == 0 {
					continue
				}
				b, ok := top(i).Attr("busid")
				multiPort = ok && len(b) == len(tb) && len(b) > 0 && b[:len(b)-1] == tb[:len(b)-1]
			}
		}
		if multiPort {
			return pathPORT, f.firstPCIParent(common)
		}
	}
	var t PathType
	switch {
	case common == nil:
		t = PathDIS
	case common.Name == "system":
		t = PathSYS
	case common.Name == "cpu":
		t = PathPHB
	case common.Name == "nic" || common.Name == "net":
		t = pathPORT
	case checkPix(common, nodes):
		t = PathPIX
	default:
		t = PathPXB
	}
	return t, f.firstPCIParent(common)
}

// checkPix is ncclTopoCheckPix: the common element has a bus id and every
// NIC's PCI device hangs right under it.
func checkPix(common *XMLNode, nodes []*XMLNode) bool {
	if _, ok := common.Attr("busid"); !ok {
		return false
	}
	for _, n := range nodes {
		if n.Name != "net" {
			continue
		}
		if n = n.parent; n == nil {
			return false
		}
		if n.Name != "nic" {
			continue
		}
		if n = n.parent; n == nil {
			return false
		}
		if n.Name == "pci" && n.parent != common {
			return false
		}
	}
	return true
}

// firstPCIParent is ncclFindFirstPciParent (2.27.3+): the first <pci> at
// or above n, or n itself when the climb reaches the system.
func (f *fusion) firstPCIParent(n *XMLNode) *XMLNode {
	if !f.p.NetFusionPCIParent || n == nil {
		return n
	}
	for t := n; t != nil && t.Name != "system"; t = t.parent {
		if t.Name == "pci" {
			return t
		}
	}
	return n
}

// populate is ncclTopoPopulateNics for the virtual devices of both passes
// (coll, the CollNet plugin's, may be nil) and the trim of the physical
// ports they took (keep="0", removed by ncclTopoTrimXml). It returns the
// vNics made, CollNet's first. What a CollNet port (coll="1") becomes
// when the network fuses it:
//   - 2.24.3–2.26.6: it keeps its node. The network's pass clears keep on
//     its ports, but ncclTopoPopulateNics leaves keep alone on a port
//     tagged coll when the pass is not CollNet's, so the port stays a
//     NET with CollNet support beside the network's vNic (which has none)
//     unless the CollNet pass fused it itself.
//   - 2.27.3–2.30.4: ncclTopoMakeVnic clears keep on every port it fuses
//     and each pass sets keep on its ports again first, so a port is kept
//     iff the network did not fuse it; every CollNet vNic is kept.
//   - 2.30.7 (NetFusionPluginTags): ncclTopoUpdateVNics marks a fused port
//     net="0" or coll="0" per pass and clears keep only when no plugin
//     lists it; ncclTopoAddNic makes a NET of net="1" nodes only. So a port
//     the network fused is no NET (trimmed here: nothing else reads it), a
//     port only CollNet fused is a NET without CollNet, and a CollNet vNic
//     the network did not make too is no NET.
func (f *fusion) populate(coll *fusion) ([]VNic, error) {
	base := len(f.phys)
	for _, n := range f.phys {
		base = max(base, int(netDevAttr(n))+1)
	}
	idx := make(map[*XMLNode]int, len(f.phys))
	for i, n := range f.phys {
		idx[n] = i
	}
	var made []VNic
	// collGroup names each group of several ports the CollNet pass made,
	// by its ports' names, with its device number.
	collGroup := map[string]int{}
	collMerged := make([]bool, len(f.phys))
	collFused := coll != nil && len(coll.vnics) > 0
	if coll != nil {
		for k, devs := range coll.vnics {
			v := VNic{Plugin: "collnet", Dev: len(coll.phys) + k, Rail: -1, Plane: -1}
			for _, d := range devs {
				name, _ := coll.phys[d].Attr("name")
				v.Ports = append(v.Ports, name)
				v.Speed += attrInt(coll.phys[d], "speed")
				if len(devs) > 1 {
					collMerged[idx[coll.phys[d]]] = true
				}
			}
			made = append(made, v)
			if len(devs) > 1 {
				collGroup[v.Name()] = k
			}
		}
	}
	tagged := make([]bool, len(f.phys))
	for i, n := range f.phys {
		tagged[i] = n.attrIs("coll", "1")
	}
	keep := make([]bool, len(f.phys))
	for i := range keep {
		switch {
		case f.p.NetFusion == NetFusionAll && tagged[i]:
			// only the CollNet pass moves a CollNet port's keep; a port
			// it left alone in a group of one keeps its node
			keep[i] = !collFused || !collMerged[i]
		case f.p.NetFusion == NetFusionAll:
			keep[i] = len(f.vnics) == 0
		default:
			keep[i] = !f.merged[i]
		}
		if f.p.NetFusionPluginTags && collMerged[i] {
			f.phys[i].SetAttr("coll", "0")
		}
	}
	netMade := map[string]bool{}
	// the ports' rail and plane (ncclTopoPopulateNics writes them when
	// NCCL_IB_HCA names them, 2.30.7)
	railOf := func(d int) int {
		if _, ok := f.phys[d].Attr("rail"); !ok {
			return -1
		}
		return int(attrInt(f.phys[d], "rail"))
	}
	planes := make([]int, len(f.phys))
	for d := range f.phys {
		planes[d] = -1
		if _, ok := f.phys[d].Attr("plane"); ok {
			planes[d] = int(attrInt(f.phys[d], "plane"))
		}
	}
	// a refused plane id fails the IB's init (G-NET-IB-PLANE-1) before
	// the topology is built; a system that reaches here with one anyway
	// is refused with the WARN
	planeIdx, bad, warn := IBPlaneIndexes(planes)
	if bad >= 0 {
		return nil, fmt.Errorf("NET/IB port %d: %s (ncclIbGetPlaneIndex)", bad, warn)
	}
	for k, devs := range f.vnics {
		v := VNic{Plugin: "net", Dev: base + k, Rail: railOf(devs[0]), Plane: planes[devs[0]]}
		if len(devs) > 1 {
			v.Plane = ibPlaneVirtBit
		}
		for _, d := range devs {
			name, _ := f.phys[d].Attr("name")
			v.Ports = append(v.Ports, name)
			v.Speed += attrInt(f.phys[d], "speed")
			if railOf(d) == -1 || railOf(d) != v.Rail {
				v.Rail = -1
			}
			if len(devs) > 1 {
				v.Plane |= 1 << planeIdx[d]
			}
		}
		made = append(made, v)
		if len(devs) == 1 {
			f.phys[devs[0]].SetAttr("dev", fmt.Sprint(base+k))
			keep[devs[0]] = keep[devs[0]] || !tagged[devs[0]]
			continue
		}
		netMade[v.Name()] = true
		net, err := f.addVNic(devs, base+k)
		if err != nil {
			return nil, err
		}
		if _, ok := collGroup[v.Name()]; ok {
			// the CollNet pass made this node first (ncclTopoFillNet
			// finds it by name)
			net.SetAttr("coll", "1")
		}
	}
	if coll != nil {
		for k, devs := range coll.vnics {
			name := made[k].Name()
			if len(devs) == 1 || netMade[name] || f.p.NetFusionPluginTags {
				continue
			}
			net, err := coll.addVNic(devs, len(coll.phys)+k)
			if err != nil {
				return nil, err
			}
			net.SetAttr("coll", "1")
		}
	}
	for i, n := range f.phys {
		if !keep[i] {
			trimNode(n)
		}
	}
	return made, nil
}

// addVNic writes the vNic of devs where ncclTopoGetVNicParent puts it.
func (f *fusion) addVNic(devs []int, dev int) (*XMLNode, error) {
	parent, err := f.vnicParent(devs)
	if err != nil {
		return nil, err
	}
	nic := parent.Sub("nic")
	if nic == nil {
		nic = parent.Add("nic")
	}
	return f.addFused(nic, devs, dev), nil
}

func (n *XMLNode) attrIs(key, v string) bool {
	a, ok := n.Attr(key)
	return ok && a == v
}

// trimNode removes an element and then each ancestor (<nic>, <pci>) left
// without children, as ncclTopoTrimXml drops branches with nothing kept.
func trimNode(n *XMLNode) {
	for n != nil && n.parent != nil {
		p := n.parent
		p.Subs = slices.DeleteFunc(p.Subs, func(s *XMLNode) bool { return s == n })
		n.parent = nil
		if len(p.Subs) > 0 || (p.Name != "nic" && p.Name != "pci") {
			return
		}
		n = p
	}
}

// vnicParent is ncclTopoGetVNicParent: where the virtual NIC goes. Under
// the NIC when the ports share one (2.27.3+; before, the common <nic> gets a
// <nic> of its own, which ncclTopoAddNic does not read), under a made-up
// PCI device copied from the first port's below a PCI switch (any PCI
// parent before 2.27.3) or, from 2.28.3, below a CPU (before, directly
// under the CPU). From 2.28.3 a PIX/PXB/PHB group widens the PCI links to
// the sum of the ports' widths.
func (f *fusion) vnicParent(devs []int) (*XMLNode, error) {
	nodes := make([]*XMLNode, len(devs))
	for i, d := range devs {
		nodes[i] = f.phys[d]
	}
	path, parent := f.xmlPath(nodes)
	if parent == nil {
		return nil, fmt.Errorf("fusing %d NET devices: no common parent element (ncclTopoGetVNicParent)", len(devs))
	}
	aggregate := 0
	if f.p.NetFusionCPUParent && (path == PathPHB || path == PathPXB || path == PathPIX) {
		w := findLinkWidth(parent, nodes)
		if f.p.NetFusionAggregate {
			aggregate = w
		} else {
			widenLinks(nodes, parent, w)
		}
	}
	physParent := parent
	var err error
	switch parent.Name {
	case "pci":
		class, _ := parent.Attr("class")
		if !f.p.NetFusionPCIParent || class == pciBridgeClass {
			parent, err = f.makePCIParent(parent, nodes[0])
		}
	case "cpu":
		if f.p.NetFusionCPUParent {
			parent, err = f.makePCIParent(parent, nodes[0])
		}
	case "system":
		if f.p.NetFusionAggregate {
			return nil, fusionErr(nccl.InvalidArgument, "Fusing NET devices from different NUMA domains is not supported.")
		}
	}
	if err != nil {
		return nil, err
	}
	if aggregate > 0 {
		for n := parent; n != nil; n = n.parent {
			if n.Name == "pci" {
				n.SetAttr("link_width", fmt.Sprint(aggregate))
			}
			if n == physParent {
				break
			}
		}
	}
	return parent, nil
}

// makePCIParent is ncclTopoMakePciParent: a new <pci> under parent with
// the attributes of the first port's PCI device and the next unused bus id.
func (f *fusion) makePCIParent(parent, phys0 *XMLNode) (*XMLNode, error) {
	var pci *XMLNode
	if nic := phys0.parent; nic != nil && nic.parent != nil && nic.parent.Name == "pci" {
		pci = nic.parent
	}
	if pci == nil {
		name, _ := phys0.Attr("name")
		return nil, fusionErr(nccl.InternalError, "TOPO/NET : Can't find busId of child 0 %s", name)
	}
	bus, _ := pci.Attr("busid")
	id, err := BusIDToInt64(bus)
	if err != nil {
		return nil, fmt.Errorf("TOPO/NET : <pci busid=%q>: %v", bus, err)
	}
	for range 100 {
		id++
		b := int64ToBusID(id)
		if findPCI(f.x, b) {
			continue
		}
		n := parent.Add("pci", XMLAttr{"busid", b})
		for _, a := range pci.Attrs {
			n.SetAttr(a.Key, a.Value)
		}
		n.SetAttr("busid", b)
		return n, nil
	}
	return nil, fusionErr(nccl.InternalError, "TOPO/NET : Couldn't generate unique busId after 100 tries")
}

func findPCI(n *XMLNode, bus string) bool {
	if n.Name == "pci" && n.attrIs("busid", bus) {
		return true
	}
	for _, s := range n.Subs {
		if findPCI(s, bus) {
			return true
		}
	}
	return false
}

// findLinkWidth is ncclTopoFindLinkWidth (2.28.3+): the lanes below parent
// that lead to the ports, each PCI element the bottleneck of its own width
// and the sum below it.
func findLinkWidth(parent *XMLNode, nodes []*XMLNode) int {
	total := 0
	for _, c := range parent.Subs {
		if found, w := linkWidthRec(c, nodes); found {
			total += w
		}
	}
	return total
}

func linkWidthRec(n *XMLNode, nodes []*XMLNode) (bool, int) {
	mine := 0
	if n.Name == "pci" {
		mine = int(attrInt(n, "link_width"))
	}
	found := slices.Contains(nodes, n)
	sum := 0
	for _, c := range n.Subs {
		if f, w := linkWidthRec(c, nodes); f {
			found = true
			sum += w
		}
	}
	switch {
	case !found:
		return false, 0
	case sum == 0:
		return true, mine
	case mine > 0:
		return true, min(mine, sum)
	}
	return true, sum
}

// widenLinks is ncclTopoWidenLinks (2.28.3–2.30.4): every PCI element from
// the ports up to the common parent, and the parent, take the summed width.
func widenLinks(nodes []*XMLNode, parent *XMLNode, width int) {
	w := fmt.Sprint(width)
	for _, n := range nodes {
		for t := n; t != nil && t != parent; t = t.parent {
			if t.Name == "pci" {
				t.SetAttr("link_width", w)
			}
		}
	}
	if parent.Name == "pci" {
		parent.SetAttr("link_width", w)
	}
}
