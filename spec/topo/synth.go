package topo

import (
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Synthesize writes the topology XML NCCL would dump for a host described
// by spec (NCCL_TOPO_DUMP_FILE format: <cpu> per socket, PCIe switches,
// <gpu> with <nvlink>/<c2c>, <nic><net>) and builds the System from it with
// the newest release's rules. WriteXML prints that XML, so a preset can be
// fed to real NCCL with NCCL_TOPO_FILE.
func Synthesize(spec NodeSpec) (*System, error) {
	x, err := SynthesizeXML(spec)
	if err != nil {
		return nil, err
	}
	name := spec.Name
	if name == "" {
		name = "synthesized"
	}
	return BuildSystem(name, x, DefaultParams())
}

// SynthesizeMNNVL fuses trays copies of a host into one multi-node NVLink
// clique, as NCCL does when MNNVL is on (one <cpu> group per tray with its
// own host_hash, every GPU on the one NVSwitch fabric). Search treats the
// clique as a single NCCL node. What it does not model: the fabric/clique
// ids NVML reports (every tray is taken as one clique) and IMEX.
func SynthesizeMNNVL(spec NodeSpec, trays int) (*System, error) {
	if trays < 1 {
		return nil, fmt.Errorf("MNNVL: %d trays: expected at least 1", trays)
	}
	if !spec.NVSwitch {
		return nil, fmt.Errorf("MNNVL: node spec %q has no NVSwitch: expected NVSwitch: true", spec.Name)
	}
	root := &XMLNode{Name: "system", Attrs: []XMLAttr{{"version", "1"}}}
	for t := 0; t < trays; t++ {
		s := spec
		s.Name = fmt.Sprintf("%s-tray%d", spec.Name, t)
		x, err := SynthesizeXML(s)
		if err != nil {
			return nil, err
		}
		for _, c := range x.Subs {
			c.parent = root
			root.Subs = append(root.Subs, c)
		}
	}
	return BuildSystem(fmt.Sprintf("%s x%d MNNVL", spec.Name, trays), root, DefaultParams())
}

var pciGenSpeed = map[int]string{1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe", 6: "64.0 GT/s PCIe"}

// gpuDeviceID is a plausible PCI device id per SM, for the dump's looks only.
func gpuDeviceID(sm int) string {
	switch {
	case sm >= 100:
		return "0x2941"
	case sm >= 90:
		return "0x2335"
	case sm >= 80:
		return "0x20b0"
	case sm >= 70:
		return "0x1db1"
	}
	return "0x15f8"
}

// Validate checks a NodeSpec and names the field at fault.
func (spec NodeSpec) Validate() error {
	where := "node spec " + strconv.Quote(spec.Name)
	switch spec.CPUArch {
	case "x86_64":
		switch spec.CPUVendor {
		case "Intel", "AMD", "Zhaoxin":
		default:
			return fmt.Errorf("%s: CPUVendor %q: expected Intel, AMD or Zhaoxin on x86_64", where, spec.CPUVendor)
		}
		if spec.CPUVendor == "Intel" {
			if _, ok := intelModelIDs[spec.CPUModel]; !ok {
				return fmt.Errorf("%s: CPUModel %q: expected bdw, skl, srp or erp on Intel", where, spec.CPUModel)
			}
		}
	case "arm64", "ppc64":
	default:
		return fmt.Errorf("%s: CPUArch %q: expected x86_64, arm64 or ppc64", where, spec.CPUArch)
	}
	if spec.Sockets < 1 {
		return fmt.Errorf("%s: Sockets %d: expected at least 1", where, spec.Sockets)
	}
	if spec.NUMAUnknown && spec.Sockets != 1 {
		return fmt.Errorf("%s: NUMAUnknown with %d sockets: expected one socket", where, spec.Sockets)
	}
	if len(spec.GPUs) == 0 {
		return fmt.Errorf("%s: no GPUs: expected at least one", where)
	}
	devs := map[int]bool{}
	buses := map[int64]bool{}
	for i, g := range spec.GPUs {
		if g.BusID != "" {
			id, err := BusIDToInt64(g.BusID)
			if err != nil || !pciBusID.MatchString(g.BusID) {
				return fmt.Errorf("%s: GPU %d: BusID %q: expected a PCI address such as 0000:00:06.0", where, i, g.BusID)
			}
			if buses[id] {
				return fmt.Errorf("%s: GPU %d: BusID %q used twice", where, i, g.BusID)
			}
			buses[id] = true
		}
		if g.SM < 30 || g.SM > 200 {
			return fmt.Errorf("%s: GPU %d: SM %d: expected a compute capability times ten such as 70, 80, 90, 100", where, i, g.SM)
		}
		if g.MLOParts != 0 && g.MLOParts != mloPartDevMax {
			return fmt.Errorf("%s: GPU %d: MLOParts %d: expected 0 (a whole GPU) or %d (an MLOPart GPU's partitions)", where, i, g.MLOParts, mloPartDevMax)
		}
		if g.Ranks < 0 || g.Ranks > maxGPUsPerHost || g.Ranks > 1 && g.MLOParts != 0 {
			return fmt.Errorf("%s: GPU %d: Ranks %d: expected 0 to %d ranks on a whole GPU (an MLOPart GPU's partitions are one rank each)", where, i, g.Ranks, maxGPUsPerHost)
		}
		if devs[g.Dev] {
			return fmt.Errorf("%s: GPU %d: dev %d used twice", where, i, g.Dev)
		}
		devs[g.Dev] = true
		if g.NUMA < 0 || g.NUMA >= spec.Sockets {
			return fmt.Errorf("%s: GPU %d: NUMA %d: expected 0..%d", where, i, g.NUMA, spec.Sockets-1)
		}
		if g.Switch >= len(spec.Switches) {
			return fmt.Errorf("%s: GPU %d: switch %d: only %d switches", where, i, g.Switch, len(spec.Switches))
		}
		if spec.NVSwitch && g.NVLinks < 0 {
			return fmt.Errorf("%s: GPU %d: NVLinks %d: expected >= 0", where, i, g.NVLinks)
		}
		if _, ok := pciGenSpeed[defInt(g.PCIGen, 4)]; !ok {
			return fmt.Errorf("%s: GPU %d: PCIGen %d: expected 1..6", where, i, g.PCIGen)
		}
		for peer, n := range g.Peers {
			if !spec.hasDev(peer) || peer == g.Dev || n <= 0 {
				return fmt.Errorf("%s: GPU %d: peer dev %d with %d links: expected another GPU's dev and a positive count", where, i, peer, n)
			}
		}
	}
	gpuBuses := maps.Clone(buses)
	devices := map[string]int{}
	for i, n := range spec.NICs {
		if n.BusID != "" {
			dev, err := NICDevice(n.BusID)
			if err != nil {
				return fmt.Errorf("%s: NIC %d: %v", where, i, err)
			}
			id, _ := BusIDToInt64(n.BusID)
			devID, _ := BusIDToInt64(dev)
			if buses[id] || gpuBuses[devID] {
				return fmt.Errorf("%s: NIC %d: BusID %q used twice (a GPU's or another port's address)", where, i, n.BusID)
			}
			buses[id] = true
			if n.NoPCI || n.Socket {
				return fmt.Errorf("%s: NIC %d: BusID %q on a NIC without a PCI device (NoPCI, Socket): expected no BusID", where, i, n.BusID)
			}
			if j, ok := devices[dev]; ok && (spec.NICs[j].NUMA != n.NUMA || spec.NICs[j].Switch != n.Switch) {
				return fmt.Errorf("%s: NIC %d: BusID %q is a port of NIC %d's device, on NUMA %d switch %d: expected the same NUMA and switch as that port", where, i, n.BusID, j, spec.NICs[j].NUMA, spec.NICs[j].Switch)
			} else if !ok {
				devices[dev] = i
			}
		}
		if n.NUMA < 0 || n.NUMA >= spec.Sockets {
			return fmt.Errorf("%s: NIC %d: NUMA %d: expected 0..%d", where, i, n.NUMA, spec.Sockets-1)
		}
		if n.Switch >= len(spec.Switches) {
			return fmt.Errorf("%s: NIC %d: switch %d: only %d switches", where, i, n.Switch, len(spec.Switches))
		}
		if _, ok := pciGenSpeed[defInt(n.PCIGen, 5)]; !ok {
			return fmt.Errorf("%s: NIC %d: PCIGen %d: expected 1..6", where, i, n.PCIGen)
		}
	}
	for i, s := range spec.Switches {
		if s.NUMA < 0 || s.NUMA >= spec.Sockets {
			return fmt.Errorf("%s: switch %d: NUMA %d: expected 0..%d", where, i, s.NUMA, spec.Sockets-1)
		}
		if s.Parent >= i {
			return fmt.Errorf("%s: switch %d: parent %d: expected an earlier switch or -1", where, i, s.Parent)
		}
		if _, ok := pciGenSpeed[defInt(s.PCIGen, 4)]; !ok {
			return fmt.Errorf("%s: switch %d: PCIGen %d: expected 1..6", where, i, s.PCIGen)
		}
	}
	return nil
}

var pciBusID = regexp.MustCompile(`^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$`)

// NICDevice is the PCI device of a NIC port's function address: the
// address with function 0, lower case.
func NICDevice(busID string) (string, error) {
	if !pciBusID.MatchString(busID) {
		return "", fmt.Errorf("BusID %q: expected a PCI function address such as 0000:16:00.1", busID)
	}
	return strings.ToLower(busID[:len(busID)-1]) + "0", nil
}

func (spec NodeSpec) hasDev(d int) bool {
	for _, g := range spec.GPUs {
		if g.Dev == d {
			return true
		}
	}
	return false
}

func defInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// intelModelIDs are the modelid values the XML carries for NCCL's Intel
// models (family 6): Broadwell, Skylake, Sapphire Rapids, Emerald Rapids.
var intelModelIDs = map[string]int{"bdw": 0x4F, "skl": 0x55, "srp": 0x8F, "erp": 0xCF}

// SynthesizeXML writes the <system> element for spec.
func SynthesizeXML(spec NodeSpec) (*XMLNode, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	h := fnv.New64a()
	h.Write([]byte(spec.Name))
	hostHash := fmt.Sprintf("%#x", h.Sum64())
	root := &XMLNode{Name: "system", Attrs: []XMLAttr{{"version", "1"}}}
	usedBus := map[int64]bool{}
	for _, g := range spec.GPUs {
		if g.BusID != "" {
			id, _ := BusIDToInt64(g.BusID)
			usedBus[id] = true
		}
	}
	for _, n := range spec.NICs {
		if n.BusID != "" {
			dev, _ := NICDevice(n.BusID)
			for _, b := range []string{n.BusID, dev} {
				id, _ := BusIDToInt64(b)
				usedBus[id] = true
			}
		}
	}
	// a multi-port NIC's device: its <nic>, first GUID and ports so far
	type nicDevice struct {
		nic   *XMLNode
		guid  uint64
		ports int
	}
	nicDevices := map[string]*nicDevice{}
	bus := 0x10
	nextBus := func() string {
		for {
			b := bus
			bus += 0x10
			id := fmt.Sprintf("%04x:%02x:00.0", b>>8, b&0xff)
			if n, _ := BusIDToInt64(id); !usedBus[n] {
				return id
			}
		}
	}
	cpus := make([]*XMLNode, spec.Sockets)
	for s := range cpus {
		numa := strconv.Itoa(s)
		if spec.NUMAUnknown {
			numa = "-1"
		}
		c := root.Add("cpu", XMLAttr{"host_hash", hostHash}, XMLAttr{"numaid", numa}, XMLAttr{"arch", spec.CPUArch})
		if spec.CPUArch == "x86_64" {
			switch spec.CPUVendor {
			case "Intel":
				c.SetAttr("vendor", "GenuineIntel")
				c.SetAttr("familyid", "6")
				c.SetAttr("modelid", strconv.Itoa(intelModelIDs[spec.CPUModel]))
			case "AMD":
				c.SetAttr("vendor", "AuthenticAMD")
				c.SetAttr("familyid", "25")
				c.SetAttr("modelid", "1")
			case "Zhaoxin":
				c.SetAttr("vendor", "CentaurHauls")
				c.SetAttr("familyid", "7")
				c.SetAttr("modelid", "91")
			}
		}
		cpus[s] = c
	}
	link := func(n *XMLNode, gen, width int) {
		n.SetAttr("link_speed", pciGenSpeed[gen])
		n.SetAttr("link_width", strconv.Itoa(width))
	}
	// Switches in index order (a parent precedes its children).
	sw := make([]*XMLNode, len(spec.Switches))
	for i, s := range spec.Switches {
		parent := cpus[s.NUMA]
		if s.Parent >= 0 {
			parent = sw[s.Parent]
		}
		n := parent.Add("pci", XMLAttr{"busid", nextBus()}, XMLAttr{"class", "0x060400"})
		dev := s.Device
		if dev == 0 {
			dev = 0x1000c0301000100b // Broadcom PEX Gen5, not one NCCL flattens
		}
		n.SetAttr("vendor", fmt.Sprintf("0x%04x", dev>>48))
		n.SetAttr("device", fmt.Sprintf("0x%04x", (dev>>32)&0xffff))
		n.SetAttr("subsystem_vendor", fmt.Sprintf("0x%04x", (dev>>16)&0xffff))
		n.SetAttr("subsystem_device", fmt.Sprintf("0x%04x", dev&0xffff))
		link(n, defInt(s.PCIGen, 4), defInt(s.PCIWidth, 16))
		sw[i] = n
	}
	parentOf := func(numa, swi int) *XMLNode {
		if swi >= 0 {
			return sw[swi]
		}
		return cpus[numa]
	}
	// GPUs in dev order, then NICs: the XML order is the GPU order of the model.
	gpus := append([]GPUSpec(nil), spec.GPUs...)
	sort.SliceStable(gpus, func(i, j int) bool { return gpus[i].Dev < gpus[j].Dev })
	busOf := map[int]string{}
	gpuNodes := map[int][]*XMLNode{}
	rank, anyParts := 0, false
	anyShared := false
	for _, g := range gpus {
		anyParts = anyParts || g.MLOParts > 0
		anyShared = anyShared || g.Ranks > 1
	}
	for _, g := range gpus {
		b := g.BusID
		if b == "" {
			b = nextBus()
		}
		busOf[g.Dev] = b
		n := parentOf(g.NUMA, g.Switch).Add("pci", XMLAttr{"busid", b}, XMLAttr{"class", "0x030200"},
			XMLAttr{"vendor", "0x10de"}, XMLAttr{"device", gpuDeviceID(g.SM)})
		link(n, defInt(g.PCIGen, 4), defInt(g.PCIWidth, 16))
		gdr := "1"
		if g.NoGDR {
			gdr = "0"
		}
		if g.MLOParts == 0 {
			// ranks sharing the device: a <gpu> each, as ncclTopoGetSystem
			// writes every local rank's
			for range max(1, g.Ranks) {
				r := g.Dev
				if anyParts || anyShared {
					r = rank
				}
				gpuNodes[g.Dev] = append(gpuNodes[g.Dev], n.Add("gpu", XMLAttr{"dev", strconv.Itoa(g.Dev)}, XMLAttr{"sm", strconv.Itoa(g.SM)},
					XMLAttr{"rank", strconv.Itoa(r)}, XMLAttr{"gdr", gdr}))
				rank++
			}
			continue
		}
		// ranks in order with the partitions' own: ncclTopoGetSystem writes
		// each partition's rank and mlopart on its <gpu>
		for part := range g.MLOParts {
			gpuNodes[g.Dev] = append(gpuNodes[g.Dev], n.Add("gpu", XMLAttr{"dev", strconv.Itoa(g.Dev)}, XMLAttr{"sm", strconv.Itoa(g.SM)},
				XMLAttr{"rank", strconv.Itoa(rank)}, XMLAttr{"gdr", gdr}, XMLAttr{"mlopart", strconv.Itoa(part)}))
			rank++
		}
	}
	// Both ends of a GPU-GPU NVLink list it (NCCL links GPU peers one way
	// per <nvlink>): a pair named on one side only is mirrored.
	peerLinks := map[int]map[int]int{}
	for _, g := range gpus {
		for p, n := range g.Peers {
			for _, e := range [][2]int{{g.Dev, p}, {p, g.Dev}} {
				if peerLinks[e[0]] == nil {
					peerLinks[e[0]] = map[int]int{}
				}
				peerLinks[e[0]][e[1]] = max(peerLinks[e[0]][e[1]], n)
			}
		}
	}
	for _, g := range gpus {
		for _, gn := range gpuNodes[g.Dev] {
			addGPULinks(gn, g, spec.NVSwitch, peerLinks[g.Dev], busOf)
		}
	}
	for i, n := range spec.NICs {
		name := n.Name
		if name == "" {
			name = fmt.Sprintf("mlx5_%d", i)
		}
		guid, port, maxConn := n.GUID, defInt(n.Port, 1), 131072
		if guid == 0 {
			guid = 0xa088c20300000000 + uint64(i)*0x100
		}
		if n.Socket {
			guid, port, maxConn = uint64(i), 0, 65536
		}
		var nic *XMLNode
		var dev *nicDevice
		if n.BusID != "" {
			key, _ := NICDevice(n.BusID)
			if dev = nicDevices[key]; dev == nil {
				dev = &nicDevice{guid: guid}
				nicDevices[key] = dev
			} else {
				guid, port = dev.guid, port+dev.ports
				if !spec.NICFunctions {
					nic = dev.nic
				}
			}
			dev.ports++
		}
		switch {
		case nic != nil:
		case n.NoPCI:
			nic = cpus[n.NUMA].Add("nic")
		default:
			bus := nextBus()
			if dev != nil {
				bus, _ = NICDevice(n.BusID)
				if spec.NICFunctions {
					bus = strings.ToLower(n.BusID)
				}
			}
			p := parentOf(n.NUMA, n.Switch).Add("pci", XMLAttr{"busid", bus}, XMLAttr{"class", "0x020000"},
				XMLAttr{"vendor", "0x15b3"}, XMLAttr{"device", "0x1021"})
			link(p, defInt(n.PCIGen, 5), defInt(n.PCIWidth, 16))
			nic = p.Add("nic")
			if dev != nil && dev.nic == nil {
				dev.nic = nic
			}
		}
		gdr := "0"
		if n.GDR {
			gdr = "1"
		}
		net := nic.Add("net", XMLAttr{"name", name}, XMLAttr{"dev", strconv.Itoa(i)},
			XMLAttr{"speed", strconv.Itoa(n.SpeedMbps)}, XMLAttr{"port", strconv.Itoa(port)},
			XMLAttr{"latency", "0"}, XMLAttr{"guid", fmt.Sprintf("%#x", guid)}, XMLAttr{"maxconn", strconv.Itoa(maxConn)},
			XMLAttr{"gdr", gdr})
		if n.Coll {
			net.SetAttr("coll", "1")
		}
		if n.RailPlane && n.Rail != -1 {
			net.SetAttr("rail", strconv.Itoa(n.Rail))
		}
		if n.RailPlane && n.Plane != -1 {
			net.SetAttr("plane", strconv.Itoa(n.Plane))
		}
	}
	return root, nil
}

// The Preset* functions are the layouts of the hosts the project knows;
// spec's presets name them (spec.PresetNames, one list for every command)
// and add the driver-side facts. Each call returns fresh values; the
// sources of each layout are in docs/topo.md and
// testdata/public/PROVENANCE.md.

// PresetV100x4 is a DGX Station-like host: 4 V100 (sm70) all-to-all with two
// NVLinks per pair (NV2), no NVSwitch, PCIe Gen3 behind two switches on one
// Broadwell socket, no InfiniBand.
func PresetV100x4() NodeSpec {
	s := NodeSpec{Name: "v100x4", CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "bdw", Sockets: 1,
		Switches: []SwitchSpec{{NUMA: 0, PCIGen: 3, Parent: -1}, {NUMA: 0, PCIGen: 3, Parent: -1}}}
	for d := 0; d < 4; d++ {
		peers := map[int]int{}
		for p := 0; p < 4; p++ {
			if p != d {
				peers[p] = 2
			}
		}
		s.GPUs = append(s.GPUs, GPUSpec{Dev: d, SM: 70, Peers: peers, PCIGen: 3, PCIWidth: 16, Switch: d / 2})
	}
	return s
}

// PresetDGXA100 is a DGX A100: 8 A100 (sm80) with 12 NVLinks each to the
// NVSwitches, 8 HDR 200G NICs, two AMD sockets, and four Broadcom PEX Gen4
// switch complexes of 2 GPUs + 2 NICs. The PEX88096 shows up as two levels
// (nvidia-smi says PXB between a GPU and its NICs, NVIDIA/nccl#1505); NCCL
// flattens those switches (ncclTopoFlattenBcmSwitches), so the ids here are
// Broadcom Gen4 ones and the model sees PIX.
func PresetDGXA100() NodeSpec {
	const bcmGen4 = 0x1000c0101000a000
	s := NodeSpec{Name: "dgx-a100", CPUArch: "x86_64", CPUVendor: "AMD", Sockets: 2, NVSwitch: true}
	for c := 0; c < 4; c++ {
		numa := c / 2
		top := len(s.Switches)
		s.Switches = append(s.Switches,
			SwitchSpec{NUMA: numa, PCIGen: 4, Parent: -1, Device: bcmGen4},
			SwitchSpec{NUMA: numa, PCIGen: 4, Parent: top, Device: bcmGen4},
			SwitchSpec{NUMA: numa, PCIGen: 4, Parent: top, Device: bcmGen4})
		for k := 0; k < 2; k++ {
			s.GPUs = append(s.GPUs, GPUSpec{Dev: 2*c + k, SM: 80, NVLinks: 12, PCIGen: 4, PCIWidth: 16, NUMA: numa, Switch: top + 1 + k})
			s.NICs = append(s.NICs, NICSpec{Name: fmt.Sprintf("mlx5_%d", 2*c+k), SpeedMbps: 200000, NUMA: numa, Switch: top + 1 + k, GDR: true, PCIGen: 4})
		}
	}
	return s
}

// hgxH100Like is the HGX H100/H200 board as Azure's ND H100 v5 topology file
// lays it out (Azure/azhpc-images ndv5-topo.xml): two Intel Sapphire Rapids
// sockets, four PCIe Gen5 switches per socket, each with one GPU and one
// NDR 400G NIC; every GPU has 18 NVLinks to the NVSwitches.
func hgxH100Like(name string) NodeSpec {
	s := NodeSpec{Name: name, CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "srp", Sockets: 2, NVSwitch: true}
	for i := 0; i < 8; i++ {
		numa := i / 4
		s.Switches = append(s.Switches, SwitchSpec{NUMA: numa, PCIGen: 5, Parent: -1})
		s.GPUs = append(s.GPUs, GPUSpec{Dev: i, SM: 90, NVLinks: 18, PCIGen: 5, PCIWidth: 16, NUMA: numa, Switch: i})
		s.NICs = append(s.NICs, NICSpec{Name: fmt.Sprintf("mlx5_%d", i), SpeedMbps: 400000, NUMA: numa, Switch: i, GDR: true, PCIGen: 5})
	}
	return s
}

// PresetDGXH100 is an 8×H100 SXM host (see hgxH100Like).
func PresetDGXH100() NodeSpec { return hgxH100Like("dgx-h100") }

// PresetHGXH200 is an 8×H200 SXM host (see hgxH100Like). NCCL does not tell
// H100 from H200 beyond the SM.
func PresetHGXH200() NodeSpec { return hgxH100Like("hgx-h200") }

// PresetDGXB200 is an 8×B200 host laid out as the HGX board above with
// sm100 GPUs: NVIDIA's DGX B200 datasheet gives 8 B200 with fifth-generation
// NVLink (18 links, 1.8 TB/s per GPU) through two NVSwitch chips, and 8
// single-port 400G ConnectX-7 NICs; AWS P6-B200 has the same 8-GPU NVLink
// domain with 8 × 400G EFA instead (the NICs are modelled as InfiniBand).
func PresetDGXB200() NodeSpec {
	s := hgxH100Like("dgx-b200")
	for i := range s.GPUs {
		s.GPUs[i].SM = 100
	}
	return s
}

// PresetH200x2 is the project's GPU machine as NCCL dumped it
// (golden/testdata/captured/h200x2-2.28.9/baseline/topo.xml, a Firecracker
// VM): two H200 (sm90) with 18 NVLinks each to the NVSwitch fabric, both on
// the root complex of one Intel Emerald Rapids socket whose NUMA id is
// unknown (numaid -1), PCIe Gen5 x16, no InfiniBand, and the Socket
// transport's eth0 at 10 Gb/s without a PCI path (a <nic> of the <cpu>).
func PresetH200x2() NodeSpec {
	return NodeSpec{Name: "h200x2", CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "erp", Sockets: 1, NUMAUnknown: true, NVSwitch: true,
		GPUs: []GPUSpec{
			{Dev: 0, SM: 90, NVLinks: 18, PCIGen: 5, PCIWidth: 16, Switch: -1, BusID: "0000:00:06.0"},
			{Dev: 1, SM: 90, NVLinks: 18, PCIGen: 5, PCIWidth: 16, Switch: -1, BusID: "0000:00:07.0"},
		},
		NICs: []NICSpec{{Name: "eth0", SpeedMbps: 10000, NUMA: 0, Switch: -1, NoPCI: true, Socket: true}},
	}
}

// PresetGB200 is one GB200 NVL72 compute tray: two Grace (arm64) sockets,
// each with two B200 (sm100) attached by NVLink-C2C, every GPU with 18
// NVLinks to the rack's NVSwitches, and four 400G NICs on the Graces' PCIe
// (reached from a GPU through C2C then PCIe: P2C). The C2C figures (10 links
// of 45 GB/s) are an assumption; the MNNVL domain of 72 GPUs is
// SynthesizeMNNVL(PresetGB200(), 18).
func PresetGB200() NodeSpec {
	s := NodeSpec{Name: "gb200", CPUArch: "arm64", Sockets: 2, NVSwitch: true}
	for i := 0; i < 4; i++ {
		numa := i / 2
		s.GPUs = append(s.GPUs, GPUSpec{Dev: i, SM: 100, NVLinks: 18, PCIGen: 5, PCIWidth: 16, NUMA: numa, Switch: -1, C2C: 10, C2CBw: 45000})
		s.NICs = append(s.NICs, NICSpec{Name: fmt.Sprintf("mlx5_%d", i), SpeedMbps: 400000, NUMA: numa, Switch: -1, GDR: true, PCIGen: 5})
	}
	return s
}

// addGPULinks writes a <gpu>'s <nvlink> and <c2c> elements: the NVSwitch
// links, the peer links in peer dev order, the C2C links. The partitions of
// an MLOPart GPU each list the device's links, as NVML reports them.
func addGPULinks(gn *XMLNode, g GPUSpec, nvswitch bool, peerLinks map[int]int, busOf map[int]string) {
	if nvswitch && g.NVLinks > 0 {
		gn.Add("nvlink", XMLAttr{"target", "fffffff:ff:ff.0"}, XMLAttr{"count", strconv.Itoa(g.NVLinks)}, XMLAttr{"tclass", "0x068000"})
	}
	peers := make([]int, 0, len(peerLinks))
	for p := range peerLinks {
		peers = append(peers, p)
	}
	sort.Ints(peers)
	for _, p := range peers {
		gn.Add("nvlink", XMLAttr{"target", busOf[p]}, XMLAttr{"count", strconv.Itoa(peerLinks[p])}, XMLAttr{"tclass", "0x030200"})
	}
	if g.C2C > 0 {
		gn.Add("c2c", XMLAttr{"bw", strconv.Itoa(g.C2CBw)}, XMLAttr{"count", strconv.Itoa(g.C2C)})
	}
}
