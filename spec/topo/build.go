package topo

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
)

// Bandwidth constants (GB/s) of v2.28.9-1 src/graph/topo.h.
const (
	locBw        = 5000.0 // LOC_BW
	pciBwGen3    = 12.0   // PCI_BW
	amdBw        = 16.0   // AMD_BW
	bdwQpiBw     = 6.0    // BDW_QPI_BW (QPI_BW in 2.22.3)
	sklQpiBw     = 10.0   // SKL_QPI_BW
	srpQpiBw     = 22.0   // SRP_QPI_BW
	erpQpiBw     = 40.0   // ERP_QPI_BW
	zpiBw        = 6.0    // ZPI_BW
	yongfengZpiB = 9.0    // YONGFENG_ZPI_BW
	p9Bw         = 32.0   // P9_BW
	armBw        = 6.0    // ARM_BW
)

// topoError names the file, the element's line and what was expected.
func (b *builder) errf(n *XMLNode, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", b.file, n.Line, fmt.Sprintf(format, args...))
}

// Physical bounds of a topology XML (gatesim's, checked with the element's
// line): links per GPU and GPUs per host (NCCL_MAX_LOCAL_RANKS, 72 from
// 2.28.3).
const (
	maxLinkCount   = 64
	maxGPUsPerHost = 72
)

type builder struct {
	file string
	p    Params
	sys  *System
	// noSplit is NCCL_TOPO_SPLIT_MLOPART=0 where the release reads the
	// mlopart attribute (Options.NoSplitMLOPart).
	noSplit bool
}

// BuildSystem turns a <system> element into the model NCCL builds from it,
// with the rules of release p (v2.28.9-1 src/graph/topo.cc
// ncclTopoGetSystemFromXml: CPUs with their PCI trees, then NVLinks, C2C
// links and PCI links in a second pass, then Broadcom switch flattening, the
// inter-CPU links and the link sort).
//
// Two deliberate differences from NCCL, both because NCCL fills these at run
// time from the driver: a <gpu> without a rank attribute is kept (NCCL drops
// GPUs its communicator does not use; here every GPU of the file is in the
// communicator and Search numbers the ranks), and a missing gdr attribute
// means GPU Direct RDMA is supported.
func BuildSystem(file string, x *XMLNode, p Params) (*System, error) {
	return buildSystem(file, x, p, DefaultOptions())
}

// buildSystem is BuildSystem with the variables the build reads (from
// 2.30.7 NCCL_TOPO_SPLIT_MLOPART).
func buildSystem(file string, x *XMLNode, p Params, o Options) (*System, error) {
	if x == nil || x.Name != "system" {
		return nil, fmt.Errorf("%s: expected a <system> element", file)
	}
	b := &builder{file: file, p: p, sys: &System{Name: file, Source: x, Params: p}, noSplit: p.MLOPartAttr && o.NoSplitMLOPart}
	s := b.sys
	for _, c := range x.Subs {
		if c.Name == "cpu" {
			if err := b.addCPU(c); err != nil {
				return nil, err
			}
		}
	}
	if len(s.Nodes[CPU]) == 0 {
		return nil, b.errf(x, "<system> has no <cpu> element: expected at least one <cpu numaid=\"0\" arch=\"x86_64\" ...>")
	}
	s.SystemID = 0 // the first host listed is the local one
	if err := b.addNVLinks(x, "", 0); err != nil {
		return nil, err
	}
	if err := b.addC2C(x, "", 0); err != nil {
		return nil, err
	}
	if err := b.addPCILinks(x, "", 0); err != nil {
		return nil, err
	}
	b.flattenBcmSwitches()
	b.connectCPUs()
	for _, c := range s.Nodes[CPU] {
		sortLinks(c, nil)
	}
	if len(s.Nodes[GPU]) == 0 {
		return nil, b.errf(x, "no GPU: expected <pci class=\"0x03...\"><gpu dev=\"N\" sm=\"90\" .../></pci> elements (a file with bare GPU pci entries is a hint file NCCL completes from the driver)")
	}
	s.assignRanks(0)
	s.fingerprint = x.String()
	return s, nil
}

// LoadSystem parses topology XML and builds it with the newest release's rules.
func LoadSystem(file string, data []byte) (*System, error) {
	x, err := ParseTopologyXML(file, data)
	if err != nil {
		return nil, err
	}
	return BuildSystem(file, x, DefaultParams())
}

// ForRelease rebuilds the model from its XML with another release's rules.
func (s *System) ForRelease(p Params) (*System, error) {
	if s.Source == nil {
		return nil, fmt.Errorf("system %q has no XML source to rebuild from", s.Name)
	}
	n, err := BuildSystem(s.Name, s.Source, p)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// assignRanks numbers the GPUs base, base+1, … in dev order (ties in file
// order): the usual one process per GPU, CUDA_VISIBLE_DEVICES unset.
func (s *System) assignRanks(base int) {
	g := append([]*Node(nil), s.Nodes[GPU]...)
	sort.SliceStable(g, func(i, j int) bool { return g[i].Dev < g[j].Dev })
	for i, n := range g {
		n.Rank = base + i
	}
}

func (b *builder) attr(n *XMLNode, key, expect string) (string, error) {
	v, ok := n.Attr(key)
	if !ok {
		return "", b.errf(n, "<%s> without %s attribute: expected %s", n.Name, key, expect)
	}
	return v, nil
}

func (b *builder) attrInt(n *XMLNode, key, expect string) (int, error) {
	v, err := b.attr(n, key, expect)
	if err != nil {
		return 0, err
	}
	i, err := parseCInt(v)
	if err != nil {
		return 0, b.errf(n, "<%s %s=%q>: %v: expected %s", n.Name, key, v, err, expect)
	}
	return int(i), nil
}

func (b *builder) attrIntDefault(n *XMLNode, key string, def int) (int, error) {
	v, ok := n.Attr(key)
	if !ok {
		return def, nil
	}
	i, err := parseCInt(v)
	if err != nil {
		return 0, b.errf(n, "<%s %s=%q>: %v: expected an integer", n.Name, key, v, err)
	}
	return int(i), nil
}

func (b *builder) createNode(t NodeType, id int64) *Node {
	s := b.sys
	n := &Node{Type: t, ID: id, Index: len(s.Nodes[t]), Dev: -1, Rank: -1, SM: -1, MLOPart: -1,
		Arch: ArchUndef, Vendor: VendorUndef, Model: ModelUndef, Port: -1, LocalGPU: -1}
	s.Nodes[t] = append(s.Nodes[t], n)
	return n
}

func (b *builder) getNode(t NodeType, id int64) *Node {
	for _, n := range b.sys.Nodes[t] {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// connect is ncclTopoConnectNodes: links of the same type to the same node
// aggregate (NVLinks to one NVSwitch add up), and the list stays sorted by
// bandwidth, highest first, a new link going after the equal ones.
func connect(n, rem *Node, t LinkType, bw float32) {
	var l *Link
	idx := -1
	for i, x := range n.Links {
		if x.Remote == rem && x.Type == t {
			l, idx = x, i
			break
		}
	}
	if l == nil {
		l = &Link{Type: t, Remote: rem}
		n.Links = append(n.Links, l)
		idx = len(n.Links) - 1
	}
	l.Bw = float32(l.Bw + bw)
	for idx > 0 && n.Links[idx-1].Bw < l.Bw {
		n.Links[idx] = n.Links[idx-1]
		idx--
	}
	n.Links[idx] = l
}

// kvDictCpuArch / kvDictCpuVendor (src/graph/topo.cc): prefix match, with a
// fallback value when nothing matches (kvConvertToInt).
func kvPrefix(s string, dict []kvEntry, fallback int) int {
	for _, d := range dict {
		if strings.HasPrefix(s, d.key) {
			return d.val
		}
	}
	return fallback
}

type kvEntry struct {
	key string
	val int
}

var kvCPUArch = []kvEntry{{"x86_64", int(ArchX86)}, {"arm64", int(ArchARM)}, {"ppc64", int(ArchPower)}}
var kvCPUVendor = []kvEntry{{"GenuineIntel", int(VendorIntel)}, {"AuthenticAMD", int(VendorAMD)},
	{"CentaurHauls", int(VendorZhaoxin)}, {"  Shanghai  ", int(VendorZhaoxin)}}

// kvPciGen: per-lane speed in 100 Mbps units; unknown strings count as Gen3.
var kvPciGen = []kvEntry{
	{"2.5 GT/s", 15}, {"5 GT/s", 30}, {"8 GT/s", 60}, {"16 GT/s", 120}, {"32 GT/s", 240},
	{"2.5 GT/s PCIe", 15}, {"5.0 GT/s PCIe", 30}, {"8.0 GT/s PCIe", 60}, {"16.0 GT/s PCIe", 120},
	{"32.0 GT/s PCIe", 240}, {"64.0 GT/s PCIe", 480},
}

// pciClass is kvDictPciClass: PCI bridge, (2.28) CX8 data direct, NVSwitch,
// CPU, GPU (0x03…), NIC (0x02…), fallback PCI.
func (b *builder) pciClass(s string) NodeType {
	dict := []kvEntry{{"0x060400", int(PCI)}}
	if b.p.PCIClassDataDirect {
		dict = append(dict, kvEntry{"0x080100", int(PCI)})
	}
	dict = append(dict, kvEntry{"0x068000", int(NVS)}, kvEntry{"0x068001", int(CPU)}, kvEntry{"0x03", int(GPU)}, kvEntry{"0x02", int(NIC)})
	return NodeType(kvPrefix(s, dict, int(PCI)))
}

func (b *builder) hostIndex(x *XMLNode) (int, error) {
	var h uint64
	if v, ok := x.Attr("host_hash"); ok {
		u, err := parseHex64(v)
		if err != nil {
			return 0, b.errf(x, "<cpu host_hash=%q>: %v", v, err)
		}
		h = u
	}
	s := b.sys
	for i, e := range s.HostHashes {
		if e == h {
			return i, nil
		}
	}
	s.HostHashes = append(s.HostHashes, h)
	return len(s.HostHashes) - 1, nil
}

// addCPU is ncclTopoAddCpu.
func (b *builder) addCPU(x *XMLNode) error {
	numa, err := b.attrInt(x, "numaid", `numaid="N" (the NUMA node, -1 when unknown)`)
	if err != nil {
		return err
	}
	sid, err := b.hostIndex(x)
	if err != nil {
		return err
	}
	cpu := b.createNode(CPU, topoID(sid, int64(numa)))
	arch, err := b.attr(x, "arch", `arch="x86_64", "arm64" or "ppc64"`)
	if err != nil {
		return err
	}
	cpu.Arch = CPUArch(kvPrefix(arch, kvCPUArch, int(ArchNone)))
	if cpu.Arch == ArchX86 {
		vendor, err := b.attr(x, "vendor", `vendor="GenuineIntel" or "AuthenticAMD" on x86_64`)
		if err != nil {
			return err
		}
		cpu.Vendor = CPUVendor(kvPrefix(vendor, kvCPUVendor, int(VendorNone)))
		if cpu.Vendor == VendorIntel || cpu.Vendor == VendorZhaoxin {
			fam, err := b.attrInt(x, "familyid", `familyid="6" on Intel and Zhaoxin CPUs`)
			if err != nil {
				return err
			}
			model, err := b.attrInt(x, "modelid", `modelid="143" on Intel and Zhaoxin CPUs`)
			if err != nil {
				return err
			}
			if cpu.Vendor == VendorIntel {
				switch {
				case b.p.IntelSRPERP && fam == 6 && model >= 0xCF:
					cpu.Model = ModelIntelERP
				case b.p.IntelSRPERP && fam == 6 && model >= 0x8F:
					cpu.Model = ModelIntelSRP
				case fam == 6 && model >= 0x55:
					cpu.Model = ModelIntelSKL
				default:
					cpu.Model = ModelIntelBDW
				}
			} else if fam == 7 && model == 0x5B {
				cpu.Model = ModelYongfeng
			}
		}
	}
	for _, c := range x.Subs {
		switch c.Name {
		case "pci":
			if err := b.addPCI(c, cpu, sid, numa); err != nil {
				return err
			}
		case "nic":
			// A NIC without a PCI parent hangs off the CPU with LOC_BW.
			local := int64(0)
			if b.p.NICIDPerNUMA {
				local = int64(numa) << 56
			}
			id := topoID(sid, local)
			nic := b.getNode(NIC, id)
			if nic == nil {
				nic = b.createNode(NIC, id)
				connect(cpu, nic, LinkPCI, locBw)
				connect(nic, cpu, LinkPCI, locBw)
			}
			if err := b.addNIC(c, nic, sid); err != nil {
				return err
			}
		}
	}
	return nil
}

// addPCI is ncclTopoAddPci.
func (b *builder) addPCI(x *XMLNode, parent *Node, sid, numa int) error {
	class, err := b.attr(x, "class", `class="0x060400" (bridge), "0x0302.." (GPU) or "0x02...." (NIC)`)
	if err != nil {
		return err
	}
	t := b.pciClass(class)
	bus, err := b.attr(x, "busid", `busid="0000:18:00.0"`)
	if err != nil {
		return err
	}
	busID, err := BusIDToInt64(bus)
	if err != nil {
		return b.errf(x, "<pci busid=%q>: %v", bus, err)
	}
	var node *Node
	if xg := x.Sub("gpu"); xg != nil {
		t = GPU
		if !b.p.MLOPartAttr {
			// 2.30.3–2.30.4 build every <gpu> (ranks sharing the device,
			// MLOPart partitions too: no mlopart is read) on one DEV node,
			// a device of one rank too; before, only the first <gpu> is
			// read, and the GPU node is the device
			if b.p.GPUSubs {
				if node, err = b.addDevGPUs(x, x.Subs, busID, sid, -1); err != nil {
					return err
				}
			} else if node, err = b.addGPU(xg, busID, sid, -1); err != nil {
				return err
			}
		} else if err := b.addGPUSubs(x, parent, busID, sid); err != nil {
			return err
		}
	}
	if xn := x.Sub("nic"); xn != nil {
		t = NIC
		local := busID & ^int64(0xf)
		if b.p.NICIDPerNUMA {
			local = int64(numa)<<56 + busID
		}
		id := topoID(sid, local)
		nic := b.getNode(NIC, id)
		if nic == nil {
			nic = b.createNode(NIC, id)
			node = nic
		}
		if err := b.addNIC(xn, nic, sid); err != nil {
			return err
		}
	} else if t == PCI {
		node = b.createNode(PCI, topoID(sid, busID))
		for i, k := range []string{"vendor", "device", "subsystem_vendor", "subsystem_device"} {
			if v, ok := x.Attr(k); ok {
				u, err := parseCInt(v)
				if err != nil {
					return b.errf(x, "<pci %s=%q>: %v: expected a hex id such as 0x10de", k, v, err)
				}
				node.Device += uint64(u) << (48 - 16*uint(i))
			}
		}
		for _, c := range x.Subs {
			if c.Name != "pcilink" {
				if err := b.addPCI(c, node, sid, numa); err != nil {
					return err
				}
			}
		}
	}
	if node != nil {
		bw, err := b.pciBw(x)
		if err != nil {
			return err
		}
		connect(node, parent, LinkPCI, bw)
		connect(parent, node, LinkPCI, bw)
	}
	return nil
}

// pciBw is the bandwidth of a <pci>'s link to its parent: link_width
// (0 taken as 16) × the per-lane rate of link_speed / 80.
func (b *builder) pciBw(x *XMLNode) (float32, error) {
	width, err := b.attrInt(x, "link_width", `link_width="16"`)
	if err != nil {
		return 0, err
	}
	speed, err := b.attr(x, "link_speed", `link_speed="32.0 GT/s PCIe"`)
	if err != nil {
		return 0, err
	}
	if width < 0 || width > 32 {
		return 0, b.errf(x, "<%s link_width=%d>: expected 0 (taken as 16) to 32 PCIe lanes", x.Name, width)
	}
	if width == 0 {
		width = 16
	}
	gen := kvPrefix(speed, kvPciGen, 60)
	return f32(float64(width*gen) / 80.0), nil
}

// addGPU is ncclTopoAddGpu: the GPU node of one <gpu>, with the node id
// id (the bus id, with an MLOPart partition's bits from 2.30.7) and
// partition part (-1 for a whole GPU).
func (b *builder) addGPU(xg *XMLNode, id int64, sid, part int) (*Node, error) {
	node := b.createNode(GPU, topoID(sid, id))
	node.MLOPart = part
	var err error
	if node.SM, err = b.attrInt(xg, "sm", `sm="90" (compute capability times ten)`); err != nil {
		return nil, err
	}
	if node.Dev, err = b.attrInt(xg, "dev", `dev="N" (the CUDA/NVML device index)`); err != nil {
		return nil, err
	}
	if node.Rank, err = b.attrIntDefault(xg, "rank", -1); err != nil {
		return nil, err
	}
	gdr, err := b.attrIntDefault(xg, "gdr", 1)
	if err != nil {
		return nil, err
	}
	node.GDR = gdr != 0
	if node.SM < 10 || node.SM > 1000 {
		return nil, b.errf(xg, "<gpu sm=%d>: expected a compute capability times ten such as 70, 80, 90, 100", node.SM)
	}
	if node.Dev < 0 {
		return nil, b.errf(xg, "<gpu dev=%d>: expected a CUDA device index of 0 or more", node.Dev)
	}
	onHost := 1
	for _, o := range b.sys.Nodes[GPU][:len(b.sys.Nodes[GPU])-1] {
		if o.ID>>56 != node.ID>>56 {
			continue
		}
		// the partitions of one MLOPart GPU share its NVML device (its
		// dev), and so do the ranks of one device (one DEV node)
		if onHost++; o.Dev == node.Dev && devLocalID(o.ID) != devLocalID(node.ID) && !(part != -1 && o.MLOPart != -1 && mloPartBase(o.ID) == mloPartBase(node.ID)) {
			return nil, b.errf(xg, "<gpu dev=%d>: a second GPU with this dev on the host: expected one <gpu> per CUDA device", node.Dev)
		}
	}
	if onHost > maxGPUsPerHost {
		return nil, b.errf(xg, "<gpu>: %d GPUs on one host: expected at most %d (NCCL_MAX_LOCAL_RANKS)", onHost, maxGPUsPerHost)
	}
	return node, nil
}

// MLOPart ids (v2.30.7-1 src/graph/topo.h NCCL_TOPO_MLOPART_MASK,
// NCCL_TOPO_MLOPART_DEV_MAX, NCCL_TOPO_MLOPART_BUSID): a partition's DEV
// (here its GPU node) is the bus id with bit 0 set and the partition
// index in bit 1; at most two partitions per physical GPU.
const (
	mloPartMask   = 0x3
	mloPartDevMax = 2
	// mloPartLocBw is MLOPART_LOC_BW, the LOC link between two partitions.
	mloPartLocBw = 2618.0
)

// mloPartBusID is NCCL_TOPO_MLOPART_BUSID.
func mloPartBusID(busID int64, part int) int64 {
	if part == -1 {
		return busID
	}
	return busID | (int64(part)<<1|1)&mloPartMask
}

// mloPartBase is an id with its partition bits cleared: the physical GPU.
func mloPartBase(id int64) int64 { return id &^ mloPartMask }

// addGPUSubs is 2.30.7's loop of ncclTopoAddPci over every <gpu> of the
// <pci> with ncclTopoAddGpuSub (rule G-TOPO-MLOPART-1): the bus id must
// leave the partition bits clear; a <gpu mlopart=n> (n 0 or 1) is its own
// device, a DEV node joined to the parent like a whole GPU and to the
// partitions of the same GPU already built by LINK_LOC at MLOPART_LOC_BW
// both ways. The <gpu>s of one device (its one rank, or ranks sharing a
// GPU or a partition) are GPUs of its DEV node (addDevGPUs). Under NCCL_TOPO_SPLIT_MLOPART=0 the
// device is the <pci> whatever the mlopart (devPart), so the partitions
// are GPUs of one DEV node that keep their mlopart.
func (b *builder) addGPUSubs(x *XMLNode, parent *Node, busID int64, sid int) error {
	bw, err := b.pciBw(x)
	if err != nil {
		return err
	}
	for i, xg := range x.Subs {
		if xg.Name != "gpu" {
			continue
		}
		if busID&mloPartMask != 0 {
			// ncclTopoCheckMloPartBusId, for every GPU
			return b.errf(x, "BusId 0x%x has non-zero bits in MLOPart mask 0x%x, cannot encode MLOPart partition index without collision: expected a GPU bus id whose function is 0 or 4", busID, mloPartMask)
		}
		part, err := b.devPart(xg)
		if err != nil {
			return err
		}
		id := mloPartBusID(busID, part)
		if b.deviceNode(topoID(sid, id)) != nil {
			continue // a later rank of a device addDevGPUs built
		}
		var same []*XMLNode // the <gpu>s of this device, this one first
		for _, o := range x.Subs[i:] {
			if o.Name != "gpu" {
				continue
			}
			if p, err := b.devPart(o); err != nil {
				return err
			} else if p == part {
				same = append(same, o)
			}
		}
		node, err := b.addDevGPUs(x, same, id, sid, part)
		if err != nil {
			return err
		}
		connect(node, parent, LinkPCI, bw)
		connect(parent, node, LinkPCI, bw)
		for _, sib := range b.devices() {
			if sib != node && mloPartBase(sib.ID) == mloPartBase(node.ID) {
				connect(node, sib, LinkLOC, mloPartLocBw)
				connect(sib, node, LinkLOC, mloPartLocBw)
			}
		}
	}
	return nil
}

// gpuLocalRankShift is NCCL_TOPO_GPU_LOCAL_RANK_SHIFT: a GPU of a shared
// device has its index on the device above bit 40 of its id (v2.30.3-1
// src/graph/topo.h NCCL_TOPO_GPU_LOCAL_ID).
const gpuLocalRankShift = 40

// devLocalID is the device part of a GPU's local id (the rank index on a
// shared device cleared).
func devLocalID(id int64) int64 { return id & (1<<gpuLocalRankShift - 1) }

// addDevGPUs is ncclTopoAddPci's loop at 2.30.3 (ncclTopoAddGpuSub from
// 2.30.7) for every device, of one rank or several (G-TOPO-DEV-1): one DEV
// node of id id holding the device (dev, SM and gdr of its first <gpu>,
// the <pci>'s vendor and device ids), and a GPU node per <gpu> of gpus,
// id NCCL_TOPO_GPU_LOCAL_ID(id, its index on the device), joined to the
// DEV by LOC links at LOC_BW both ways. The caller links the DEV to the
// parent; NVLinks and C2C attach to it (deviceOf).
func (b *builder) addDevGPUs(x *XMLNode, gpus []*XMLNode, id int64, sid, part int) (*Node, error) {
	dev := b.createNode(DEV, topoID(sid, id))
	dev.MLOPart = part
	for i, k := range []string{"vendor", "device", "subsystem_vendor", "subsystem_device"} {
		if v, ok := x.Attr(k); ok {
			u, err := parseCInt(v)
			if err != nil {
				return nil, b.errf(x, "<pci %s=%q>: %v: expected a hex id such as 0x10de", k, v, err)
			}
			dev.Device += uint64(u) << (48 - 16*uint(i))
		}
	}
	n := 0
	for _, xg := range gpus {
		if xg.Name != "gpu" {
			continue
		}
		gp := -1 // 2.30.3–2.30.4 read no mlopart
		if b.p.MLOPartAttr {
			var err error
			if gp, err = b.mloPart(xg); err != nil {
				return nil, err
			}
		}
		g, err := b.addGPU(xg, int64(n)<<gpuLocalRankShift|id, sid, gp)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			dev.Dev, dev.SM, dev.GDR = g.Dev, g.SM, g.GDR
		} else if g.Dev != dev.Dev {
			return nil, b.errf(xg, "<gpu dev=%d> on the device of <gpu dev=%d>: expected the ranks of one device to name its one dev", g.Dev, dev.Dev)
		}
		g.Parent = dev
		connect(dev, g, LinkLOC, locBw)
		connect(g, dev, LinkLOC, locBw)
		n++
	}
	return dev, nil
}

// devices is the system's device nodes, in NCCL's DEV order: a GPU that
// is its device (before 2.30.3), or the DEV node of its ranks.
func (b *builder) devices() []*Node {
	var out []*Node
	for _, g := range b.sys.Nodes[GPU] {
		if d := g.DevNode(); !containsNode(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func containsNode(list []*Node, n *Node) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// deviceNode is the device node of id: its DEV node (2.30.3+), else the
// GPU node.
func (b *builder) deviceNode(id int64) *Node {
	if d := b.getNode(DEV, id); d != nil {
		return d
	}
	return b.getNode(GPU, id)
}

// mloPart is a <gpu>'s mlopart attribute (-1, NCCL_TOPO_UNDEF, when
// absent), bounded as ncclTopoAddGpuSub bounds it: the index bound only
// when the partition splits the device.
func (b *builder) mloPart(xg *XMLNode) (int, error) {
	part, err := b.attrIntDefault(xg, "mlopart", -1)
	if err != nil {
		return 0, err
	}
	if part >= mloPartDevMax && !b.noSplit {
		return 0, b.errf(xg, "MLOPart index %d out of range (max %d): expected mlopart=\"-1\", \"0\" or \"1\"", part, mloPartDevMax-1)
	}
	if part < -1 {
		return 0, b.errf(xg, "<gpu mlopart=%d>: expected -1 (a whole GPU), 0 or 1 (an MLOPart partition)", part)
	}
	return part, nil
}

// devPart is the partition a <gpu>'s DEV id carries: its mlopart, or -1
// (the whole device) under NCCL_TOPO_SPLIT_MLOPART=0 (ncclTopoAddGpuSub,
// ncclTopoGetGpuDevNode, ncclTopoXmlIsPrimaryGpuForDev).
func (b *builder) devPart(xg *XMLNode) (int, error) {
	part, err := b.mloPart(xg)
	if b.noSplit {
		return -1, err
	}
	return part, err
}

// mloPartDevs is ncclTopoGetDevNodes' count: the GPU nodes (DEVs) of the
// physical GPU of id, partitions or the whole GPU.
func (b *builder) mloPartDevs(id int64) int {
	n := 0
	for _, g := range b.devices() {
		if mloPartBase(g.ID) == mloPartBase(id) {
			n++
		}
	}
	return n
}

// addNIC is ncclTopoAddNic: every <net> with a dev attribute becomes a NET.
func (b *builder) addNIC(x *XMLNode, nic *Node, sid int) error {
	for _, c := range x.Subs {
		if c.Name != "net" {
			continue
		}
		if _, ok := c.Attr("dev"); !ok {
			continue
		}
		if err := b.addNET(c, nic, sid); err != nil {
			return err
		}
	}
	return nil
}

// addNET is ncclTopoAddNet.
func (b *builder) addNET(x *XMLNode, nic *Node, sid int) error {
	dev, err := b.attrInt(x, "dev", `dev="N"`)
	if err != nil {
		return err
	}
	id := topoID(sid, int64(dev))
	net := b.createNode(NET, id)
	net.NetDev = dev
	if g, ok := x.Attr("guid"); ok {
		if b.p.NetGUIDNeeds0x && !strings.HasPrefix(g, "0x") {
			net.Asic = 0 // sscanf("0x%lx") matches nothing
		} else {
			u, err := parseHex64(g)
			if err != nil {
				return b.errf(x, "<net guid=%q>: %v", g, err)
			}
			net.Asic = u
		}
	} else if b.p.NetAsicFromID {
		net.Asic = uint64(id)
	} else {
		net.Asic = uint64(dev)
	}
	mbps, err := b.attrIntDefault(x, "speed", 0)
	if err != nil {
		return err
	}
	if mbps < -1 {
		return b.errf(x, "<net speed=%d>: expected a speed in Mb/s (-1 or 0: unknown, taken as 10000 as NCCL does)", mbps)
	}
	if mbps <= 0 {
		mbps = 10000 // some NICs report -1
	}
	net.Bw = f32(float64(mbps) / 8000.0)
	if v, ok := x.Attr("latency"); ok {
		if net.Latency, err = parseFloat32(v); err != nil {
			return b.errf(x, "<net latency=%q>: %v", v, err)
		}
	}
	if net.Port, err = b.attrIntDefault(x, "port", 0); err != nil {
		return err
	}
	gdr, err := b.attrIntDefault(x, "gdr", 0)
	if err != nil {
		return err
	}
	net.GDR = gdr != 0
	if net.MaxChannels, err = b.attrIntDefault(x, "maxconn", b.p.MaxChannels); err != nil {
		return err
	}
	if net.MaxChannels < 1 {
		return b.errf(x, "<net maxconn=%d>: expected 1 or more connections", net.MaxChannels)
	}
	coll, err := b.attrIntDefault(x, "coll", 0)
	if err != nil {
		return err
	}
	net.CollSupport = coll != 0
	// pciId only needs to tell rails apart (2.28.9 NCCL hashes the parent
	// PCI bus id, or the asic when there is none); any stable hash will do.
	h := fnv.New64a()
	parent := x.parent
	for parent != nil && parent.Name != "pci" {
		parent = parent.parent
	}
	if parent != nil {
		bus, _ := parent.Attr("busid")
		h.Write([]byte(bus))
	} else {
		fmt.Fprintf(h, "asic:%x", net.Asic)
	}
	net.PciID = h.Sum64()
	connect(nic, net, LinkNET, net.Bw)
	connect(net, nic, LinkNET, net.Bw)
	return nil
}

// findLocalCPU is findLocalCpu: climb the PCI tree to the CPU.
func findLocalCPU(n, from *Node) *Node {
	if n.Type == CPU {
		return n
	}
	for _, l := range n.Links {
		if l.Type == LinkPCI && l.Remote != from && (l.Remote.Type == PCI || l.Remote.Type == CPU) {
			if c := findLocalCPU(l.Remote, n); c != nil {
				return c
			}
		}
	}
	return nil
}

// From 2.30.7 the GPU is the device of the <gpu> the element is in
// (ncclTopoGetGpuDevNode), and only the first <gpu> of that device in
// file order adds links (ncclTopoXmlIsPrimaryGpuForDev): for a later one
// gpuOf returns no node and no error.
func (b *builder) gpuOf(x *XMLNode, parentBus string, sid int) (*Node, error) {
	if parentBus == "" {
		return nil, b.errf(x, "<%s> outside a <pci busid=...> element", x.Name)
	}
	id, err := BusIDToInt64(parentBus)
	if err != nil {
		return nil, b.errf(x, "%v", err)
	}
	if xg := x.Parent(); b.p.GPUSubs && !b.p.MLOPartAttr && xg != nil && xg.Name == "gpu" && xg.Parent() != nil {
		// 2.30.3–2.30.4: only the first <gpu> of the <pci>
		for _, sib := range xg.Parent().Subs {
			if sib == xg {
				break
			}
			if sib.Name == "gpu" {
				return nil, nil
			}
		}
	}
	if xg := x.Parent(); b.p.MLOPartAttr && xg != nil && xg.Name == "gpu" && xg.Parent() != nil {
		part, err := b.devPart(xg)
		if err != nil {
			return nil, err
		}
		for _, sib := range xg.Parent().Subs {
			if sib == xg {
				break
			}
			if sib.Name != "gpu" {
				continue
			}
			if p, err := b.devPart(sib); err == nil && p == part {
				return nil, nil
			}
		}
		id = mloPartBusID(id, part)
	}
	g := b.deviceNode(topoID(sid, id))
	if g == nil {
		return nil, b.errf(x, "<%s> under bus id %s, which is not a GPU: expected it inside <pci busid=%q><gpu ...>", x.Name, parentBus, parentBus)
	}
	return g, nil
}

// walk visits every element with the bus id of its closest ancestor and the
// host index of its <cpu>, as ncclTopoAddNvLinks/AddC2c/AddPciLinks do.
func (b *builder) walk(x *XMLNode, parentBus string, sid int, name string, f func(x *XMLNode, bus string, sid int) error) error {
	if x.Name == name {
		return f(x, parentBus, sid)
	}
	if x.Name == "cpu" {
		var err error
		if sid, err = b.hostIndex(x); err != nil {
			return err
		}
	}
	if v, ok := x.Attr("busid"); ok {
		parentBus = v
	}
	for _, c := range x.Subs {
		if err := b.walk(c, parentBus, sid, name, f); err != nil {
			return err
		}
	}
	return nil
}

// addNVLinks is ncclTopoAddNvLinks: one link per <nvlink>, count × the
// per-link bandwidth of the GPU's SM; every non-GPU, non-CPU target class
// (NVSwitch and anything unknown) lands on the single NVS node.
func (b *builder) addNVLinks(x *XMLNode, parentBus string, sid int) error {
	return b.walk(x, parentBus, sid, "nvlink", func(x *XMLNode, bus string, sid int) error {
		gpu, err := b.gpuOf(x, bus, sid)
		if err != nil || gpu == nil {
			return err
		}
		// 2.30.7: the links are split evenly between the partitions of
		// both ends (localDevsCount, remDevsCount)
		nLocal := 1
		if b.p.MLOPartAttr {
			nLocal = b.mloPartDevs(gpu.ID)
		}
		count, err := b.attrInt(x, "count", `count="N" (number of links)`)
		if err != nil {
			return err
		}
		if count < 1 || count > maxLinkCount {
			return b.errf(x, "<nvlink count=%d>: expected 1 to %d links", count, maxLinkCount)
		}
		tclass, err := b.attr(x, "tclass", `tclass="0x068000" (NVSwitch), "0x030200" (GPU) or "0x068001" (CPU)`)
		if err != nil {
			return err
		}
		var remote *Node
		switch b.pciClass(tclass) {
		case GPU:
			target, err := b.attr(x, "target", `target="0000:18:00.0" (the peer GPU's bus id)`)
			if err != nil {
				return err
			}
			tid, err := BusIDToInt64(target)
			if err != nil {
				return b.errf(x, "<nvlink target=%q>: %v", target, err)
			}
			if b.p.MLOPartAttr {
				rem := topoID(sid, tid)
				if n := b.mloPartDevs(rem); n > 0 {
					bw := float32(float32(float32(count)*b.p.nvlinkBw(gpu.SM)) / float32(n) / float32(nLocal))
					for _, r := range b.devices() {
						if mloPartBase(r.ID) == mloPartBase(rem) {
							connect(gpu, r, LinkNVL, bw)
						}
					}
				}
				return nil
			}
			remote = b.deviceNode(topoID(sid, tid))
		case CPU:
			remote = findLocalCPU(gpu, nil)
		default:
			if len(b.sys.Nodes[NVS]) == 0 {
				remote = b.createNode(NVS, 0)
			} else {
				remote = b.sys.Nodes[NVS][0]
			}
		}
		if remote != nil {
			bw := float32(float32(float32(count)*b.p.nvlinkBw(gpu.SM)) / float32(nLocal))
			connect(gpu, remote, LinkNVL, bw)
			if remote.Type != GPU && remote.Type != DEV {
				connect(remote, gpu, LinkNVL, bw)
			}
		}
		return nil
	})
}

// addC2C is ncclTopoAddC2c: bw (MB/s per link) × count / 1000 between the
// GPU and its CPU, typed LINK_C2C (LINK_NVL in 2.22.3).
func (b *builder) addC2C(x *XMLNode, parentBus string, sid int) error {
	return b.walk(x, parentBus, sid, "c2c", func(x *XMLNode, bus string, sid int) error {
		gpu, err := b.gpuOf(x, bus, sid)
		if err != nil || gpu == nil {
			return err
		}
		count, err := b.attrInt(x, "count", `count="N"`)
		if err != nil {
			return err
		}
		bw, err := b.attrInt(x, "bw", `bw="N" (MB/s per link)`)
		if err != nil {
			return err
		}
		if count < 1 || count > maxLinkCount || bw < 1 || bw > 1<<30 {
			return b.errf(x, "<c2c count=%d bw=%d>: expected 1 to %d links of 1 MB/s or more", count, bw, maxLinkCount)
		}
		cbw := f32(float64(bw*count) / 1000.0)
		cpu := findLocalCPU(gpu, nil)
		if cpu == nil {
			return nil
		}
		if b.p.MLOPartAttr && b.mloPartDevs(gpu.ID) > 1 {
			// 2.30.7: the partitions share the C2C bandwidth through one
			// bridge node (CXB) between them and the CPU
			id := mloPartBase(gpu.ID)
			cxb := b.getNode(CXB, id)
			if cxb == nil {
				cxb = b.createNode(CXB, id)
				connect(cxb, cpu, b.p.C2CLink, cbw)
				connect(cpu, cxb, b.p.C2CLink, cbw)
			}
			connect(gpu, cxb, b.p.C2CLink, cbw)
			connect(cxb, gpu, b.p.C2CLink, cbw)
			return nil
		}
		connect(gpu, cpu, b.p.C2CLink, cbw)
		connect(cpu, gpu, b.p.C2CLink, cbw)
		return nil
	})
}

// addPCILinks is ncclTopoAddPciLinks: <pcilink target=> joins two PCI
// switches with a LOC link (Broadcom virtual switch links).
func (b *builder) addPCILinks(x *XMLNode, parentBus string, sid int) error {
	return b.walk(x, parentBus, sid, "pcilink", func(x *XMLNode, bus string, sid int) error {
		id, err := BusIDToInt64(bus)
		if err != nil {
			return b.errf(x, "%v", err)
		}
		pci := b.getNode(PCI, topoID(sid, id))
		if pci == nil {
			return b.errf(x, "<pcilink> under %s, which is not a PCI switch: expected it inside a <pci class=\"0x060400\">", bus)
		}
		target, err := b.attr(x, "target", `target="0000:a0:00.0"`)
		if err != nil {
			return err
		}
		tid, err := BusIDToInt64(target)
		if err != nil {
			return b.errf(x, "<pcilink target=%q>: %v", target, err)
		}
		if rem := b.getNode(PCI, topoID(sid, tid)); rem != nil {
			connect(pci, rem, LinkLOC, locBw)
		}
		return nil
	})
}

// bcmGen is getBcmGen: Broadcom Gen4/Gen5 PEX switches that show up as two
// levels.
func bcmGen(id uint64, level int) int {
	if id&0xfffffffffffff000 == 0x1000c0101000a000 {
		return 4
	}
	if id&0xfffffffffffff000 == 0x1000c03010000000|uint64(level)*0x1000 {
		return 5
	}
	return 0
}

// flattenBcmSwitches is ncclTopoFlattenBcmSwitches: a Broadcom switch and its
// sub-switches of the same device id become one switch.
func (b *builder) flattenBcmSwitches() {
	s := b.sys
	for i := 0; i < len(s.Nodes[PCI]); i++ {
		sw := s.Nodes[PCI][i]
		gen := bcmGen(sw.Device, 0)
		if gen == 0 {
			continue
		}
		var subs []*Node
		kept := sw.Links[:0:0]
		for _, l := range sw.Links {
			if l.Remote.Type == PCI && bcmGen(l.Remote.Device, 1) == gen {
				subs = append(subs, l.Remote)
				continue
			}
			kept = append(kept, l)
		}
		sw.Links = kept
		for _, sub := range subs {
			for _, l := range sub.Links {
				rem := l.Remote
				if rem == sw {
					continue
				}
				sw.Links = append(sw.Links, &Link{Type: l.Type, Bw: l.Bw, Remote: rem})
				for _, rl := range rem.Links {
					if rl.Remote == sub {
						rl.Remote = sw
						break
					}
				}
			}
			s.removeNode(sub)
		}
		sw.Device |= 0xffff
		i = -1 // the PCI list changed: restart
	}
}

// removeNode is ncclTopoRemoveNode: drop the node and every link to it.
func (s *System) removeNode(del *Node) {
	for t := range s.Nodes {
		for _, n := range s.Nodes[t] {
			if n == del {
				continue
			}
			kept := n.Links[:0]
			for _, l := range n.Links {
				if l.Remote != del {
					kept = append(kept, l)
				}
			}
			n.Links = kept
		}
	}
	list := s.Nodes[del.Type]
	for i, n := range list {
		if n == del {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	for i, n := range list {
		n.Index = i
	}
	s.Nodes[del.Type] = list
}

// interCPUBw is ncclTopoGetInterCpuBw.
func interCPUBw(c *Node) float32 {
	switch {
	case c.Arch == ArchPower:
		return p9Bw
	case c.Arch == ArchARM:
		return armBw
	case c.Arch == ArchX86 && c.Vendor == VendorIntel:
		switch c.Model {
		case ModelIntelERP:
			return erpQpiBw
		case ModelIntelSRP:
			return srpQpiBw
		case ModelIntelSKL:
			return sklQpiBw
		}
		return bdwQpiBw
	case c.Arch == ArchX86 && c.Vendor == VendorAMD:
		return amdBw
	case c.Arch == ArchX86 && c.Vendor == VendorZhaoxin:
		if c.Model == ModelYongfeng {
			return yongfengZpiB
		}
		return zpiBw
	}
	return locBw
}

// connectCPUs is ncclTopoConnectCpus: every pair of CPUs of one host.
func (b *builder) connectCPUs() {
	cpus := b.sys.Nodes[CPU]
	for i, c1 := range cpus {
		for j, c2 := range cpus {
			if i == j || c1.SystemID() != c2.SystemID() {
				continue
			}
			connect(c1, c2, LinkSYS, interCPUBw(c1))
		}
	}
}

// sortLinks is ncclTopoSort: under each CPU, every node's link to its PCI
// parent moves to the end (NVLinks, PCI down, PCI up, SYS).
func sortLinks(n, up *Node) {
	if up != nil {
		for i, l := range n.Links {
			if l.Remote == up {
				copy(n.Links[i:], n.Links[i+1:])
				n.Links[len(n.Links)-1] = l
				break
			}
		}
	}
	for _, l := range n.Links {
		if l.Type == LinkPCI && l.Remote != up {
			sortLinks(l.Remote, n)
		}
	}
}
