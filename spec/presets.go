package spec

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// Presets are the machines users name on the command line. Each builds the
// System facts of one node and replicates it; --nodes N gives multi-node
// variants. They are data: a preset never depends on the release.

// PresetOptions vary a preset.
type PresetOptions struct {
	// Nodes is the node count (0 means the preset's default, 1).
	Nodes int
	// SHARP adds the HPC-X SHARP plugin (nccl-rdma-sharp-plugins'
	// libnccl-net.so with Net and CollNet v5-v8) to every node, with its
	// CollNet devices on the node's IB NICs.
	SHARP bool
	// Shared builds the node's facts once: every node is a copy of the
	// first that shares its slices, maps and pointers (only Host and the
	// MNNVL clique differ). For a system that is only read, as Init reads
	// it, this is the same machine at a fraction of the cost, and Init
	// groups such nodes without encoding each one; changing one node's
	// GPUs in place would change every node's.
	Shared bool
	// Cliques splits the trays of each NVL72 rack of a preset with an
	// NVLink fabric into that many cliques of consecutive trays (NVML
	// cliqueId 0..Cliques-1) of the rack's one fabric cluster, as a fabric
	// partition or NCCL_MNNVL_CLIQUE_ID does; 0 or 1 keeps one clique per
	// rack. At most the trays of the first rack.
	Cliques int
	// MLOPart splits every GPU of the preset into the two partitions of an
	// MLOPart GPU, each a CUDA device and a rank of its own (the GPU's
	// NVML dev, bus id and links shared): twice the ranks per node.
	MLOPart bool
}

type presetDef struct {
	doc string
	// layout is the host's hardware as spec/topo synthesizes it (the
	// topology stage alone runs on it: gatesim topo search and dump).
	layout func() topo.NodeSpec
	// node adds the driver-side facts to the layout.
	node func(topo.NodeSpec) Node
	// sharpByDefault: the preset's own description includes the SHARP
	// library (v100x4, the design chapter's machine).
	sharpByDefault bool
}

var presets = map[string]presetDef{
	"v100x4": {
		doc:            "4 × V100 (sm70) joined by NVLink without an NVSwitch, multicast attribute 0, the HPC-X SHARP library (Net and CollNet v5–v8) in the loader path, no verbs device: the design chapter's machine",
		layout:         topo.PresetV100x4,
		node:           v100x4Node,
		sharpByDefault: true,
	},
	"h200x2": {
		doc:    "2 × H200 (sm90) joined by NV18 through an NVSwitch, Socket network only, multicast-capable (run it with NCCL_NVLS_ENABLE=0 as the project's GPU machine is)",
		layout: topo.PresetH200x2,
		node:   h200x2Node,
	},
	"dgx-a100": {
		doc:    "DGX A100: 8 × A100 (sm80), 12 NVLinks each to NVSwitches, 8 × 200G HDR InfiniBand NICs (one per GPU, on the GPU's PCIe switch), 2 AMD Rome sockets",
		layout: topo.PresetDGXA100,
		node:   dgxA100Node,
	},
	"dgx-h100": {
		doc:    "DGX H100: 8 × H100 (sm90), 18 NVLinks each to NVSwitches, 8 × 400G NDR InfiniBand NICs (one per GPU, on the GPU's PCIe switch), 2 Intel Sapphire Rapids sockets, multicast-capable",
		layout: topo.PresetDGXH100,
		node:   sxmNode("H100"),
	},
	"hgx-h200": {
		doc:    "HGX H200: 8 × H200 (sm90), 18 NVLinks each to NVSwitches, 8 × 400G NDR InfiniBand NICs, 2 Intel Sapphire Rapids sockets, multicast-capable",
		layout: topo.PresetHGXH200,
		node:   sxmNode("H200"),
	},
	"dgx-b200": {
		doc:    "DGX B200: 8 × B200 (sm100), 18 NVLinks each to NVSwitches, 8 × 400G NDR InfiniBand NICs (one per GPU, on the GPU's PCIe switch), 2 Intel sockets, multicast-capable (AWS P6-B200's NVLink domain; P6 has 8 × 400G EFA instead)",
		layout: topo.PresetDGXB200,
		node:   sxmNode("B200"),
	},
	"gb200-nvl72": {
		doc:    "GB200 NVL72 compute tray: 4 × B200 (sm100) with 18 NVLinks each into the rack's NVSwitches, 2 Grace (arm64) CPUs over C2C, 4 × 400G NDR NICs; trays of one rack (up to 18) share one multi-node NVLink clique",
		layout: topo.PresetGB200,
		node:   gb200Node,
	},
}

// presetAliases are older names of presets that the documentation gave
// and that every command still takes: the topology stage called the
// GB200 tray gb200 (docs/topo.md).
var presetAliases = map[string]string{"gb200": "gb200-nvl72"}

// PresetNames lists the presets in sorted order: every command that names
// a machine takes these (and the aliases PresetAliases lists).
func PresetNames() []string {
	out := make([]string, 0, len(presets))
	for k := range presets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PresetAliases are the older preset names still taken, each with the
// preset it names.
func PresetAliases() map[string]string { return maps.Clone(presetAliases) }

// presetDefOf finds a preset by name or alias, in any case; the error
// lists the presets.
func presetDefOf(name string) (string, presetDef, error) {
	key, def, ok := lookupPreset(name)
	if !ok {
		return "", presetDef{}, UnknownName("system preset", name, PresetNames())
	}
	return key, def, nil
}

func lookupPreset(name string) (string, presetDef, bool) {
	key := strings.ToLower(name)
	if a, ok := presetAliases[key]; ok {
		key = a
	}
	def, ok := presets[key]
	return key, def, ok
}

// PresetKey is the preset's own name for a name or alias given in any
// case (gb200, GB200: gb200-nvl72), so that outputs name one machine one
// way; false when none has it.
func PresetKey(name string) (string, bool) {
	key, _, ok := lookupPreset(name)
	return key, ok
}

// IsPreset reports whether s names a preset or an alias, in any case.
func IsPreset(s string) bool {
	_, _, ok := lookupPreset(s)
	return ok
}

// PresetDoc describes a preset.
func PresetDoc(name string) string {
	_, def, _ := presetDefOf(name)
	return def.doc
}

// PresetLayout is the hardware layout of one host of a preset, for the
// topology stage alone.
func PresetLayout(name string) (topo.NodeSpec, error) {
	_, def, err := presetDefOf(name)
	if err != nil {
		return topo.NodeSpec{}, err
	}
	return def.layout(), nil
}

// Preset builds a preset system.
func Preset(name string, o PresetOptions) (*System, error) {
	key, def, err := presetDefOf(name)
	if err != nil {
		return nil, err
	}
	n := o.Nodes
	if n == 0 {
		n = 1
	}
	if err := checkNodes(n); err != nil {
		return nil, err
	}
	build := func() Node {
		ns := def.layout()
		if o.MLOPart {
			for i := range ns.GPUs {
				ns.GPUs[i].MLOParts = 2
			}
		}
		nd := def.node(ns)
		if (o.SHARP || def.sharpByDefault) && !hasLib(nd, "libnccl-net.so") {
			nd.Libs = append(nd.Libs, SHARPPlugin())
		}
		return nd
	}
	first := build()
	if err := CheckShape(n, len(first.GPUs)); err != nil {
		return nil, fmt.Errorf("--nodes %d: %v", n, err)
	}
	if c := o.Cliques; c != 0 && c != 1 {
		trays := min(n, nvl72Trays)
		switch {
		case first.MNNVLClique == "":
			return nil, fmt.Errorf("mnnvl_cliques %d: %s has no NVLink fabric: expected a preset whose trays share a fabric cluster (gb200-nvl72)", c, key)
		case c < 0 || c > trays:
			return nil, fmt.Errorf("mnnvl_cliques %d: expected 1 to %d (the trays of the first rack on %d node(s))", c, trays, n)
		}
	}
	sys := &System{Name: key, Nodes: make([]Node, 0, n)}
	if n > 1 {
		sys.Name = fmt.Sprintf("%s×%d", sys.Name, n)
	}
	for i := range n {
		nd := first
		if i > 0 && !o.Shared {
			nd = build()
		}
		nd.Host = fmt.Sprintf("node%03d", i)
		if nd.MNNVLClique != "" {
			// an NVL72 rack holds 18 trays, one fabric cluster; the next
			// trays form the next one
			rack := i / nvl72Trays
			nd.MNNVLClique = fmt.Sprintf("%s-rack%d", nd.MNNVLClique, rack)
			if o.Cliques > 1 {
				inRack := min(n-rack*nvl72Trays, nvl72Trays)
				nd.MNNVLCliqueID = uint32(i % nvl72Trays * o.Cliques / inRack)
			}
		}
		sys.Nodes = append(sys.Nodes, nd)
	}
	if o.SHARP || def.sharpByDefault {
		sys.Name += "+sharp"
	}
	if o.MLOPart {
		sys.Name += "+mlopart"
	}
	return sys, nil
}

// nvl72Trays is the compute trays of a GB200 NVL72 rack.
const nvl72Trays = 18

func hasLib(n Node, base string) bool {
	for _, l := range n.Libs {
		if l.Base() == base {
			return true
		}
	}
	return false
}

// SHARPPlugin is nccl-rdma-sharp-plugins as HPC-X installs it: one
// libnccl-net.so exporting ncclNetPlugin_v5..v8 (verbs-based; named "NCCL
// RDMA Plugin vN" when loaded and "IBext_vN" once its init has picked the IB
// transport, src/p2p_plugin.c pluginInit_vN) and ncclCollNetPlugin_v5..v8
// ("SHARP", one CollNet device per IB port),
// whose reduceSupport accepts sum, min and max on the 16- to 64-bit types.
func SHARPPlugin() Library {
	types := []string{"int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bfloat16"}
	return Library{
		Path:           "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so",
		InLoaderPath:   true,
		NetSymbols:     []int{5, 6, 7, 8},
		CollNetSymbols: []int{5, 6, 7, 8},
		Net:            &NetBackend{Name: "IBext_v%d", LoadName: "NCCL RDMA Plugin v%d", Devices: -1, IBBased: true},
		CollNet: &CollNetBackend{Name: "SHARP", Devices: -1,
			ReduceSupport: ReduceSet{"sum": types, "min": types, "max": types}},
	}
}

// LibmPath is a shared object every Linux machine has and that exports no
// NCCL symbol: the design chapter's "a .so with no NCCL symbols".
const LibmPath = "/usr/lib/x86_64-linux-gnu/libm.so.6"

// fromLayout builds a preset node: the hardware from spec/topo's layout, the
// driver-side facts (multicast, verbs, CUDA) from the arguments.
func fromLayout(ns topo.NodeSpec, gpuName string, multicast bool, drv Driver, ip string) Node {
	n := Node{Driver: drv, IPInterfaces: []string{ip}, GPUs: []GPU{{Name: gpuName, Multicast: multicast}}}
	nodeFromLayout(&n, ns)
	return n
}

func v100x4Node(ns topo.NodeSpec) Node {
	n := fromLayout(ns, "Tesla V100-SXM2-32GB", false, Driver{MulticastAPI: true, CUDA: 12040, CuMem: true, Verbs: true}, "eth0")
	n.Libs = []Library{{Path: LibmPath, InLoaderPath: true}}
	return n
}

// h200x2Node is the project's GPU machine as NCCL dumped it: the layout is
// spec/topo's, reproduced from the captured topology.
func h200x2Node(ns topo.NodeSpec) Node {
	return fromLayout(ns, "NVIDIA H200", true, Driver{MulticastAPI: true, CUDA: 13000, CuMem: true, Verbs: true}, "eth0:192.0.2.2")
}

func dgxA100Node(ns topo.NodeSpec) Node {
	return fromLayout(ns, "NVIDIA A100-SXM4-80GB", false, Driver{MulticastAPI: true, CUDA: 12040, CuMem: true, Verbs: true}, "eth0")
}

// sxmNode is an 8-GPU NVSwitch board of multicast-capable GPUs (H100,
// H200, B200) with a CUDA 12.8 driver.
func sxmNode(gpu string) func(topo.NodeSpec) Node {
	return func(ns topo.NodeSpec) Node {
		return fromLayout(ns, "NVIDIA "+gpu, true, Driver{MulticastAPI: true, CUDA: 12080, CuMem: true, Verbs: true}, "eth0")
	}
}

func gb200Node(ns topo.NodeSpec) Node {
	n := fromLayout(ns, "NVIDIA GB200", true, Driver{MulticastAPI: true, CUDA: 12080, CuMem: true, Verbs: true}, "eth0")
	for i := range n.GPUs {
		n.GPUs[i].FabricHandle = true
	}
	n.MNNVLClique = "nvl72"
	return n
}
