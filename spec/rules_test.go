package spec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// ruleCase drives one rule to one outcome: a preset (possibly changed), an
// environment and an operation, and the verdict the rule must give in each
// listed release.
type ruleCase struct {
	name     string
	rule     RuleID
	releases []Version
	preset   string
	opts     PresetOptions
	mutate   func(*System)
	env      Env
	op       *Op
	want     Outcome
	// whyHas, when set, must appear in the verdict's Why.
	whyHas string
	// logHas, when set, must be one of the verdict's log lines (prefix).
	logHas string
}

var (
	all   = []Version{V2_22_3, V2_28_3, V2_28_9}
	r22   = []Version{V2_22_3}
	r28   = []Version{V2_28_3, V2_28_9}
	r2883 = []Version{V2_28_3}
	r2889 = []Version{V2_28_9}
)

func arOp(bytes int64) *Op {
	o, _ := OpFromBytes(AllReduce, bytes, Float32, Sum, 0)
	return &o
}

func withLib(l Library) func(*System) {
	return func(s *System) {
		for i := range s.Nodes {
			s.Nodes[i].Libs = append([]Library{l}, s.Nodes[i].Libs...)
		}
	}
}

func withConfig(s string) func(*System) {
	return func(sys *System) {
		c, err := ParseConfig(s)
		if err != nil {
			panic(err)
		}
		sys.CommConfig = c
	}
}

func noSHARPOnNode(n int) func(*System) {
	return func(s *System) {
		var keep []Library
		for _, l := range s.Nodes[n].Libs {
			if l.Base() != "libnccl-net.so" {
				keep = append(keep, l)
			}
		}
		s.Nodes[n].Libs = keep
	}
}

var netOnly = Library{Path: "/opt/net/libnccl-net-netonly.so", InLoaderPath: true, NetSymbols: []int{8},
	Net: &NetBackend{Name: "NetOnly", Devices: 2}}

var tunerLibrary = Library{Path: "/opt/tuner/libnccl-tuner.so", InLoaderPath: true, TunerSymbols: []int{2, 3, 4, 5},
	Tuner: &tuning.TunerBehaviour{Name: "example", Rules: []tuning.TunerRule{{Func: "allreduce", MinBytes: 0, MaxBytes: 1 << 30, Algo: "Ring", Proto: "Simple", Cost: 0}}}}

var ruleCases = []ruleCase{
	// Layer 0.
	{name: "conf file fills unset", rule: "G-NVLS-ENV-1", releases: all, preset: "dgx-h100",
		mutate: func(s *System) { s.Conf = ConfFiles{etcConfPath: Env{"NCCL_NVLS_ENABLE": "0"}} }, want: Fail},
	{name: "process env wins over conf", rule: "G-NVLS-ENV-1", releases: all, preset: "dgx-h100",
		mutate: func(s *System) { s.Conf = ConfFiles{etcConfPath: Env{"NCCL_NVLS_ENABLE": "0"}} }, env: Env{"NCCL_NVLS_ENABLE": "2"}, want: Pass},
	{name: "NCCL_CONF_FILE names the user file", rule: "G-NVLS-ENV-1", releases: r28, preset: "dgx-h100",
		mutate: func(s *System) { s.Conf = ConfFiles{"/tmp/my.conf": Env{"NCCL_NVLS_ENABLE": "0"}} }, env: Env{"NCCL_CONF_FILE": "/tmp/my.conf"}, want: Fail},
	{name: "NCCL_CONF_FILE is not read by 2.22.3", rule: "G-NVLS-ENV-1", releases: r22, preset: "dgx-h100",
		mutate: func(s *System) { s.Conf = ConfFiles{"/tmp/my.conf": Env{"NCCL_NVLS_ENABLE": "0"}} }, env: Env{"NCCL_CONF_FILE": "/tmp/my.conf"}, want: Pass},
	{name: "env plugin accepted", rule: "G-ENV-PLUGIN-1", releases: r2889, preset: "dgx-h100",
		mutate: withLib(Library{Path: "/opt/env/libnccl-env.so", InLoaderPath: true, EnvSymbols: []int{1}, EnvVars: Env{"NCCL_NVLS_ENABLE": "0"}}), want: Pass},
	{name: "env plugin answers ncclGetEnv", rule: "G-NVLS-ENV-1", releases: r2889, preset: "dgx-h100",
		mutate: withLib(Library{Path: "/opt/env/libnccl-env.so", InLoaderPath: true, EnvSymbols: []int{1}, EnvVars: Env{"NCCL_NVLS_ENABLE": "0"}}), want: Fail},
	{name: "env plugin without symbol", rule: "G-ENV-PLUGIN-1", releases: r2889, preset: "dgx-h100",
		mutate: withLib(Library{Path: "/opt/env/libnccl-env.so", InLoaderPath: true}), want: Fail, logHas: "External env plugin"},
	{name: "hex integer", rule: "G-ENV-PARAM-1", releases: all, preset: "v100x4", env: Env{"NCCL_NVLS_ENABLE": "0x0"}, want: Pass, logHas: "NCCL_NVLS_ENABLE set by environment to 0."},
	{name: "overflowing integer", rule: "G-ENV-PARAM-1", releases: all, preset: "v100x4", env: Env{"NCCL_NVLS_ENABLE": "99999999999999999999"}, want: Fail,
		logHas: "Invalid value 99999999999999999999 for NCCL_NVLS_ENABLE, using default 2."},
	{name: "config kept", rule: "G-ENV-CONFIG-1", releases: all, preset: "v100x4", mutate: withConfig("maxCTAs=4"), want: Pass, whyHas: "config maxCTAs kept"},
	{name: "config overridden", rule: "G-ENV-CONFIG-1", releases: all, preset: "v100x4", mutate: withConfig("maxCTAs=4"),
		env: Env{"NCCL_MAX_CTAS": "8"}, want: Pass, whyHas: "the environment overrides maxCTAs"},
	{name: "config minCTAs alone", rule: "G-ENV-CONFIG-1", releases: all, preset: "v100x4", mutate: withConfig("minCTAs=2"), want: Fail,
		logHas: "Invalid config min/max channels attribute value 2/-2147483648"},

	// Several ranks on one GPU: the MLOPart preset's partitions share a bus
	// id (refused up to 2.30.4) but not a UUID (2.30.7).
	{name: "one rank per GPU", rule: "G-DEV-DUP-1", releases: append(all, V2_30_3, V2_30_7), preset: "dgx-b200", want: Pass},
	{name: "MLOPart partitions share a bus id", rule: "G-DEV-DUP-1", releases: []Version{V2_18_1, V2_22_3, V2_29_7}, preset: "dgx-b200", opts: PresetOptions{MLOPart: true},
		want: Fail, logHas: "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 90000"},
	{name: "MLOPart partitions share a bus id (ncclCheckMultiRank)", rule: "G-DEV-DUP-1", releases: []Version{V2_30_3, V2_30_4}, preset: "dgx-b200", opts: PresetOptions{MLOPart: true},
		want: Fail, logHas: "Detected ranks 0 and 1 sharing GPU with bus 90000 on this node"},
	{name: "MLOPart partitions have their own UUID", rule: "G-DEV-DUP-1", releases: []Version{V2_30_7}, preset: "dgx-b200", opts: PresetOptions{MLOPart: true}, want: Pass},
	{name: "two ranks on one CUDA device", rule: "G-DEV-DUP-1", releases: []Version{V2_30_7}, preset: "dgx-b200", mutate: func(s *System) { s.Nodes[0].GPUs[1].Dev = 0 },
		want: Fail, logHas: "Multiple Ranks are using the same GPU/Partition."},
	// ncclCommInitAll's devlist: a CUDA device named twice fails with no
	// WARN; ncclCommInitRank layouts have no devlist.
	{name: "ranks made by ncclCommInitRank", rule: "G-DEV-DUP-2", releases: append(all, V2_30_3, V2_30_7), preset: "dgx-b200", want: Skip},
	{name: "ncclCommInitAll, one rank per device", rule: "G-DEV-DUP-2", releases: append(all, V2_30_3, V2_30_7), preset: "dgx-b200",
		mutate: func(s *System) { s.Procs = ProcsInitAll }, want: Pass},
	{name: "ncclCommInitAll, MLOPart partitions are devices", rule: "G-DEV-DUP-2", releases: []Version{V2_29_7, V2_30_7}, preset: "dgx-b200", opts: PresetOptions{MLOPart: true},
		mutate: func(s *System) { s.Procs = ProcsInitAll }, want: Pass},
	{name: "ncclCommInitAll devlist names a device twice", rule: "G-DEV-DUP-2", releases: append(all, V2_30_3, V2_30_7), preset: "dgx-b200",
		mutate: func(s *System) { s.Procs, s.Nodes[0].GPUs[1].Dev = ProcsInitAll, 0 }, want: Fail, whyHas: "no WARN"},
	// a failed init on its way out (G-INIT-ABORT-1): ncclCommInitRank
	// outside a group frees the failed job twice at 2.24.3-2.25.1
	{name: "failed ncclCommInitRank outside a group", rule: "G-INIT-ABORT-1", releases: []Version{V2_24_3, V2_25_1}, preset: "dgx-b200",
		mutate: func(s *System) { s.Nodes[0].GPUs[1].Dev = 0 }, want: Fail, logHas: "free(): double free detected in tcache 2"},
	{name: "NCCL_ALGO refused in the init job", rule: "G-INIT-ABORT-1", releases: []Version{V2_24_3, V2_25_1}, preset: "dgx-b200",
		env: Env{"NCCL_ALGO": "bogus"}, want: Fail, whyHas: "ncclInvalidUsage, which is never returned"},
	{name: "failed job freed once (launchedJob)", rule: "G-INIT-ABORT-1", releases: []Version{V2_26_2, V2_28_9, V2_30_7}, preset: "dgx-b200",
		mutate: func(s *System) { s.Nodes[0].GPUs[1].Dev = 0 }, want: Pass, whyHas: "launchedJob"},
	{name: "ncclCommInitRank in a group per GPU", rule: "G-INIT-ABORT-1", releases: []Version{V2_24_3, V2_25_1}, preset: "dgx-b200",
		mutate: func(s *System) { s.Procs, s.Nodes[0].GPUs[1].Dev = ProcsPerNode, 0 }, want: Pass, whyHas: "ncclGroupEnd"},
	{name: "ncclCommInitRankConfig opens its own group", rule: "G-INIT-ABORT-1", releases: []Version{V2_24_3, V2_25_1}, preset: "dgx-b200",
		mutate: func(s *System) { withConfig("maxCTAs=4")(s); s.Nodes[0].GPUs[1].Dev = 0 }, want: Pass, whyHas: "ncclCommInitRankConfig"},
	{name: "ncclCommInitAll refuses its devlist first", rule: "G-INIT-ABORT-1", releases: []Version{V2_24_3, V2_25_1}, preset: "dgx-b200",
		mutate: func(s *System) { s.Procs, s.Nodes[0].GPUs[1].Dev = ProcsInitAll, 0 }, want: Pass, whyHas: "before any init job"},
	// a device the process does not see: silent up to 2.22.3, a WARN from 2.23.4
	{name: "ncclCommInitAll devlist names a device not visible, silently", rule: "G-DEV-DUP-2", releases: []Version{V2_18_1, V2_22_3}, preset: "dgx-b200",
		mutate: func(s *System) { s.Procs, s.Nodes[0].VisibleDevices = ProcsInitAll, 1 }, want: Fail, whyHas: "ncclUnhandledCudaError before any communicator, with no WARN"},
	{name: "ncclCommInitAll devlist names a device not visible", rule: "G-DEV-DUP-2", releases: []Version{V2_23_4, V2_28_9, V2_30_3, V2_30_7}, preset: "dgx-b200",
		mutate: func(s *System) { s.Procs, s.Nodes[0].VisibleDevices = ProcsInitAll, 1 }, want: Fail, logHas: "Invalid device 1 (totalnDev=1)"},

	// Layer 1: library discovery.
	{name: "profiler plugin accepted", rule: "G-PROF-1", releases: r28, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/p/libnccl-profiler.so", InLoaderPath: true, ProfilerSymbols: []int{2}}), want: Pass, logHas: "PROFILER/Plugin: Loaded libnccl-profiler.so (v2)"},
	{name: "profiler init fails, init goes on", rule: "G-PROF-1", releases: r28, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/p/libnccl-profiler.so", InLoaderPath: true, ProfilerSymbols: []int{2}, Profiler: &ProfilerBackend{InitError: 2}}), want: Fail, whyHas: "init continues"},
	{name: "no profiler library", rule: "G-PROF-1", releases: r28, preset: "dgx-h100", want: Skip, logHas: "PROFILER/Plugin: Could not find: libnccl-profiler.so"},
	{name: "the net plugin's library has no profiler", rule: "G-PROF-1", releases: r28, preset: "v100x4", want: Info, whyHas: "the net plugin's library"},
	{name: "GIN in the net plugin", rule: "G-GIN-1", releases: r2889, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/net/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{8}, Net: &NetBackend{Name: "N", Devices: 1}, GinSymbols: []int{11}}), want: Pass},
	{name: "net plugin without GIN", rule: "G-GIN-1", releases: r2889, preset: "v100x4", mutate: withLib(netOnly), want: Info},
	{name: "GIN plugin v13 and its RMA, never initialised", rule: "G-RMA-1", releases: []Version{V2_30_3}, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/g/libnccl-gin.so", InLoaderPath: true, GinSymbols: []int{13}, RmaSymbols: []int{13}}), want: Info, logHas: "NET/Plugin: Loaded rma plugin"},
	{name: "2.28: symmetric memory one node only", rule: "G-GIN-CONN-1", releases: r2889, preset: "dgx-h100", opts: PresetOptions{Nodes: 2}, env: Env{"NCCL_GIN_ENABLE": "0"}, want: Skip},
	{name: "GIN_ENABLE=0 meets the symmetric kernels' GIN request", rule: "G-GIN-CONN-1", releases: []Version{V2_29_2, V2_30_7}, preset: "dgx-h100", opts: PresetOptions{Nodes: 2},
		env: Env{"NCCL_GIN_ENABLE": "0"}, want: Fail, whyHas: "GIN is disabled."},
	{name: "GIN_ENABLE=0: type none, no window spans nodes", rule: "G-GIN-CONN-1", releases: []Version{V2_29_7, V2_30_3}, preset: "dgx-h100", opts: PresetOptions{Nodes: 2},
		env: Env{"NCCL_GIN_ENABLE": "0"}, want: Skip, whyHas: "does not span nodes"},
	{name: "CROSS_NIC=0: rail-only GIN", rule: "G-GIN-CONN-1", releases: []Version{V2_29_7, V2_30_7}, preset: "dgx-h100", opts: PresetOptions{Nodes: 2},
		env: Env{"NCCL_CROSS_NIC": "0"}, want: Pass, whyHas: "rail only"},
	{name: "CROSS_NIC=0: no GIN support (2.29.2)", rule: "G-GIN-CONN-1", releases: []Version{V2_29_2}, preset: "dgx-h100", opts: PresetOptions{Nodes: 2},
		env: Env{"NCCL_CROSS_NIC": "0"}, want: Skip, whyHas: "NCCL_CROSS_NIC=0"},
	{name: "full GIN", rule: "G-GIN-CONN-1", releases: []Version{V2_29_2, V2_30_7}, preset: "dgx-h100", opts: PresetOptions{Nodes: 2}, want: Pass, whyHas: "to every rank"},
	{name: "plane ids indexed", rule: "G-NET-IB-PLANE-1", releases: []Version{V2_30_7}, preset: "dgx-h100", env: Env{"NCCL_IB_HCA": "mlx5_0:1::1,mlx5_1:1::2"}, want: Pass, whyHas: "indexes [1 2]"},
	{name: "plane id with the virtual bit", rule: "G-NET-IB-PLANE-1", releases: []Version{V2_30_7}, preset: "dgx-h100", env: Env{"NCCL_IB_HCA": "mlx5_0:1::1,mlx5_1:1::16384"}, want: Fail,
		whyHas: "NCCL cannot use a plane ID that is 16384."},
	{name: "a 13th plane id", rule: "G-NET-IB-PLANE-1", releases: []Version{V2_30_7}, preset: "dgx-h100",
		env: Env{"NCCL_IB_HCA": "=mlx5_0:1::1,mlx5_1:1::2,mlx5_2:1::3,mlx5_3:1::4,mlx5_4:1::5,mlx5_5:1::6,mlx5_6:1::7,mlx5_7:1::-2"}, want: Fail, whyHas: "plane ID that is -2"},
	{name: "no plane named", rule: "G-NET-IB-PLANE-1", releases: []Version{V2_30_7}, preset: "dgx-h100", want: Skip},
	{name: "refused plane: IB fails", rule: "G-NET-IB-1", releases: []Version{V2_30_7}, preset: "dgx-h100", env: Env{"NCCL_IB_HCA": "mlx5_0:1::-5"}, want: Fail, logHas: "NCCL cannot use a plane ID that is -5."},
	{name: "no RMA plugin", rule: "G-RMA-1", releases: []Version{V2_30_7}, preset: "v100x4", want: Info, logHas: "RMA/Plugin: Could not find: libnccl-rma.so"},
	{name: "default libnccl-net.so", rule: "G-NET-LIB-1", releases: all, preset: "v100x4", want: Pass},
	{name: "NCCL_NET_PLUGIN=foo missing", rule: "G-NET-LIB-1", releases: all, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": "foo"}, want: Fail,
		whyHas: "foo, libnccl-net-foo.so"},
	{name: "prefixed name opens", rule: "G-NET-LIB-1", releases: all, preset: "v100x4", mutate: withLib(netOnly), env: Env{"NCCL_NET_PLUGIN": "netonly"}, want: Pass,
		whyHas: "libnccl-net-netonly.so"},
	{name: "2.28 never prefixes lib*.so", rule: "G-NET-LIB-1", releases: r28, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": "libfoo.so"}, want: Fail, whyHas: "no entry opened: libfoo.so"},
	{name: "2.28 none", rule: "G-NET-LIB-1", releases: r28, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": "none"}, want: Fail, whyHas: "names no external plugin"},
	{name: "2.22 none is a file name", rule: "G-NET-LIB-1", releases: r22, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": "none"}, want: Fail, whyHas: "libnccl-net-none.so"},
	{name: "nothing opened: internal", rule: "G-NET-LIB-2", releases: r22, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": "foo"}, want: Fail,
		logHas: "NET/Plugin: Could not find: foo libnccl-net-foo.so. Using internal network plugin."},
	{name: "nothing opened: internal (2.28)", rule: "G-NET-LIB-2", releases: r28, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": "foo"}, want: Fail},
	{name: "opened: not internal", rule: "G-NET-LIB-2", releases: all, preset: "v100x4", want: Skip},

	{name: "two external plugins: the other is disabled", rule: "G-NET-LIB-3", releases: r28, preset: "dgx-h100", opts: PresetOptions{SHARP: true},
		mutate: withLib(netOnly), env: Env{"NCCL_NET_PLUGIN": "libnccl-net.so,netonly"}, want: Info, logHas: "Disabling external plugins: netonly"},
	{name: "one external plugin", rule: "G-NET-LIB-3", releases: r28, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, want: Skip},

	// Layer 2: ABI.
	{name: "SHARP v8 accepted", rule: "G-NET-ABI-1", releases: all, preset: "v100x4", want: Pass},
	{name: "libm: no NCCL symbol", rule: "G-NET-ABI-1", releases: r22, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": LibmPath}, want: Fail,
		logHas: "NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5)"},
	{name: "libm: unsupported (2.28)", rule: "G-NET-ABI-1", releases: r28, preset: "v100x4", env: Env{"NCCL_NET_PLUGIN": LibmPath}, want: Fail,
		logHas: "External network plugin " + LibmPath + " is unsupported"},
	{name: "v5-only plugin rejected by 2.28", rule: "G-NET-ABI-1", releases: r28, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/old/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{5}, Net: &NetBackend{Name: "Old", Devices: 1}}), want: Fail},
	{name: "v5-only plugin accepted by 2.22", rule: "G-NET-ABI-1", releases: r22, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/old/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{5}, Net: &NetBackend{Name: "Old", Devices: 1}}), want: Pass,
		logHas: "NET/Plugin: Loaded net plugin Old (v5)"},
	{name: "CollNet v8 accepted", rule: "G-COLLNET-ABI-1", releases: all, preset: "v100x4", want: Pass},
	{name: "net-only plugin: no CollNet", rule: "G-COLLNET-ABI-1", releases: all, preset: "v100x4", mutate: withLib(netOnly), env: Env{"NCCL_NET_PLUGIN": "netonly"}, want: Fail},
	{name: "CollNet v8 has AllGather", rule: "G-COLLNET-ABI-2", releases: all, preset: "v100x4", want: Pass},
	{name: "CollNet v7 has no AllGather", rule: "G-COLLNET-ABI-2", releases: all, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/c7/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{7}, CollNetSymbols: []int{7}, Net: &NetBackend{Name: "C7", Devices: 1}}), want: Fail},

	// Layer 3: devices.
	{name: "plugin with devices", rule: "G-NET-STATE-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, want: Pass},
	{name: "plugin with 0 devices", rule: "G-NET-STATE-1", releases: all, preset: "v100x4", want: Fail, logHas: "NET/IB : No device found."},
	{name: "plugin init fails", rule: "G-NET-STATE-1", releases: r28, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/bad/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{9}, Net: &NetBackend{Name: "Bad", InitError: "no license", Devices: 1}}),
		want:   Fail, logHas: "Failed to initialize NET plugin Bad"},
	{name: "internal IB usable", rule: "G-NET-IB-1", releases: all, preset: "dgx-h100", want: Pass, logHas: "NET/IB : Using [0]mlx5_0:1/IB"},
	{name: "internal IB no device", rule: "G-NET-IB-1", releases: all, preset: "v100x4", want: Fail, logHas: "NET/IB : No device found."},
	{name: "NCCL_IB_DISABLE", rule: "G-NET-IB-1", releases: all, preset: "dgx-h100", env: Env{"NCCL_IB_DISABLE": "1"}, want: Fail},
	{name: "NCCL_IB_HCA excludes all", rule: "G-NET-IB-1", releases: all, preset: "dgx-h100", env: Env{"NCCL_IB_HCA": "^mlx5"}, want: Fail},
	{name: "socket usable", rule: "G-NET-SOCK-1", releases: all, preset: "v100x4", want: Pass},
	{name: "socket: interface filter excludes everything", rule: "G-NET-SOCK-1", releases: all, preset: "v100x4", env: Env{"NCCL_SOCKET_IFNAME": "ens"}, want: Fail,
		logHas: "NET/Socket : no interface found"},
	{name: "network chosen", rule: "G-NET-SEL-1", releases: all, preset: "dgx-h100", want: Pass, logHas: "Using network IB"},
	{name: "NCCL_NET names a network without devices", rule: "G-NET-SEL-1", releases: r22, preset: "v100x4", env: Env{"NCCL_NET": "IB"}, want: Fail,
		logHas: "Error: network IB not found."},
	{name: "NCCL_NET names a network without devices (2.28)", rule: "G-NET-SEL-1", releases: r28, preset: "v100x4", env: Env{"NCCL_NET": "IB"}, want: Fail,
		logHas: "Failed to initialize any NET plugin"},
	{name: "host device type", rule: "G-NET-ABI-2", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, want: Pass},
	{name: "UNPACK version mismatch", rule: "G-NET-ABI-2", releases: all, preset: "dgx-h100",
		mutate: withLib(Library{Path: "/opt/gpudirect/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{8}, Net: &NetBackend{Name: "FasTrak", Devices: 8, DeviceType: "unpack", DeviceVersion: 5}}),
		want:   Fail, whyHas: "incompatible version 5"},
	{name: "CollNet attached", rule: "G-NET-SEL-2", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, want: Pass},
	{name: "internal network: no CollNet", rule: "G-NET-SEL-2", releases: all, preset: "v100x4", want: Fail},
	{name: "NCCL_NET=IB drops the plugin's CollNet", rule: "G-NET-SEL-2", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, env: Env{"NCCL_NET": "IB"}, want: Fail},
	{name: "MNNVL clique", rule: "G-MNNVL-1", releases: all, preset: "gb200-nvl72", opts: PresetOptions{Nodes: 2}, want: Pass},
	{name: "no fabric: MNNVL off", rule: "G-MNNVL-1", releases: all, preset: "dgx-h100", opts: PresetOptions{Nodes: 2}, want: Fail},
	{name: "CollNet object attached", rule: "G-COLLNET-PLUGIN-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, want: Pass},
	{name: "no CollNet object", rule: "G-COLLNET-PLUGIN-1", releases: all, preset: "v100x4", env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Fail},
	{name: "COLLNET_ENABLE=1", rule: "G-COLLNET-ENV-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Pass},
	{name: "COLLNET_ENABLE=true", rule: "G-COLLNET-ENV-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, env: Env{"NCCL_COLLNET_ENABLE": "true"}, want: Fail},
	{name: "COLLNET_ENABLE=01 is not \"1\" in 2.22", rule: "G-COLLNET-ENV-1", releases: r22, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, env: Env{"NCCL_COLLNET_ENABLE": "01"}, want: Fail},
	{name: "COLLNET_ENABLE=01 reads as 1 in 2.28", rule: "G-COLLNET-ENV-1", releases: r28, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, env: Env{"NCCL_COLLNET_ENABLE": "01"}, want: Pass},
	{name: "COLLNET_ENABLE=2 invalid in 2.28", rule: "G-COLLNET-ENV-1", releases: r28, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, env: Env{"NCCL_COLLNET_ENABLE": "2"}, want: Fail,
		logHas: "collnetEnable 2 is not a valid value 0/1, set it to 0"},
	{name: "NVLS auto", rule: "G-NVLS-ENV-1", releases: all, preset: "dgx-h100", want: Pass},
	{name: "NVLS off", rule: "G-NVLS-ENV-1", releases: all, preset: "dgx-h100", env: Env{"NCCL_NVLS_ENABLE": "0"}, want: Fail},
	{name: "8 GPUs pass the GPU count", rule: "G-NVLS-EARLY-1", releases: all, preset: "dgx-h100", want: Pass},
	{name: "2 GPUs: off up to 2.28.3", rule: "G-NVLS-EARLY-1", releases: []Version{V2_22_3, V2_28_3}, preset: "h200x2", want: Fail},
	{name: "2 GPUs: candidate from 2.28.7", rule: "G-NVLS-EARLY-1", releases: r2889, preset: "h200x2", want: Pass},
	{name: "multicast attribute", rule: "G-NVLS-CAP-1", releases: all, preset: "dgx-h100", want: Pass, logHas: "NVLS multicast support is available on dev 0"},
	{name: "no multicast attribute", rule: "G-NVLS-CAP-1", releases: all, preset: "v100x4", want: Fail, logHas: "NVLS multicast support is not available on dev 0"},
	{name: "forced skips the attribute", rule: "G-NVLS-CAP-1", releases: all, preset: "v100x4", env: Env{"NCCL_NVLS_ENABLE": "1"}, want: Pass},
	{name: "NVLS channels", rule: "G-NVLS-CHAN-1", releases: all, preset: "dgx-h100", want: Pass, whyHas: "16 NVLS channel(s)"},
	{name: "NVLS channels from NCCL_NVLS_NCHANNELS", rule: "G-NVLS-CHAN-1", releases: all, preset: "dgx-h100", env: Env{"NCCL_NVLS_NCHANNELS": "8"}, want: Pass, whyHas: "8 NVLS channel(s)"},
	{name: "NVLS channels sm100", rule: "G-NVLS-CHAN-1", releases: r28, preset: "gb200-nvl72", want: Pass, whyHas: "24 NVLS channel(s)"},
	{name: "no NVLS channel count without support", rule: "G-NVLS-CHAN-1", releases: all, preset: "v100x4", want: Skip},

	// Layer 4: graphs and agreement.
	{name: "CollNet graphs", rule: "G-COLLNET-GRAPH-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Pass},
	{name: "CollNet graph not searched", rule: "G-COLLNET-GRAPH-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, want: Skip},
	{name: "CollNet agreed", rule: "G-COLLNET-CONS-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Pass},
	{name: "one node without SHARP disables CollNet everywhere", rule: "G-COLLNET-CONS-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 3},
		mutate: noSHARPOnNode(2), env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Fail, whyHas: "node(s) 2"},
	{name: "NVLS graph", rule: "G-NVLS-GRAPH-1", releases: all, preset: "dgx-h100", want: Pass},
	{name: "NVLS graph without NVSwitch or sm90", rule: "G-NVLS-GRAPH-1", releases: all, preset: "v100x4", env: Env{"NCCL_NVLS_ENABLE": "1"}, want: Fail,
		whyHas: "no NVSwitch in the topology, compute capability 7.0 < 9.0"},
	{name: "NVLS agreed", rule: "G-NVLS-CONS-1", releases: all, preset: "dgx-h100", want: Pass},
	{name: "NVLS cleared by consensus", rule: "G-NVLS-CONS-1", releases: all, preset: "v100x4", env: Env{"NCCL_NVLS_ENABLE": "1"}, want: Fail},
	{name: "2 nodes meet the threshold", rule: "G-COLLNET-THRESH-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Pass},
	{name: "1 node is below the threshold", rule: "G-COLLNET-THRESH-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Fail,
		logHas: "Communicator has 1 nodes which is less than CollNet node threshold 2, disabling CollNet"},
	{name: "threshold lowered", rule: "G-COLLNET-THRESH-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true},
		env: Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_COLLNET_NODE_THRESHOLD": "1"}, want: Pass},
	{name: "8 local ranks", rule: "G-COLLNET-ARITY-1", releases: r22, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Pass},
	{name: "16 local ranks disable CollNet at init", rule: "G-COLLNET-ARITY-1", releases: r22, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2},
		mutate: sixteenGPUs, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Fail, logHas: "CollNet currently only supports up to 8 GPUs per node, disabling CollNet"},
	{name: "8 local ranks (per op)", rule: "G-COLLNET-ARITY-1", releases: r28, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, op: arOp(1 << 20), want: Pass},
	{name: "16 local ranks prune CollNet per op", rule: "G-COLLNET-ARITY-1", releases: r28, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2},
		mutate: sixteenGPUs, env: Env{"NCCL_COLLNET_ENABLE": "1"}, op: arOp(1 << 20), want: Fail},
	{name: "NVLS bound", rule: "G-NVLS-SETUP-1", releases: all, preset: "dgx-h100", want: Pass},
	{name: "NVLS bind failure", rule: "G-NVLS-SETUP-1", releases: all, preset: "dgx-h100",
		mutate: func(s *System) { s.Nodes[0].Driver.NVLSBindError = "801:operation not supported" }, want: Fail},
	{name: "NVLS tree across nodes", rule: "G-NVLSTREE-1", releases: all, preset: "dgx-h100", opts: PresetOptions{Nodes: 2}, want: Pass},
	{name: "NVLS tree needs nodes", rule: "G-NVLSTREE-1", releases: all, preset: "dgx-h100", want: Fail},
	{name: "CollNet connected", rule: "G-COLLNET-SETUP-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Pass},
	{name: "CollNet connect failure", rule: "G-COLLNET-SETUP-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2},
		mutate: func(s *System) { s.Nodes[1].Libs[0].CollNet.ConnectError = "sharp_coll_init failed" }, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Fail,
		logHas: "Cannot initialize CollNet, using point-to-point network instead"},
	{name: "matrix gathered", rule: "G-COLLNET-MATRIX-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Info,
		whyHas: "sum:int32"},
	{name: "matrix not gathered without CollNet", rule: "G-COLLNET-MATRIX-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, want: Skip},
	{name: "one host, one NCCL node", rule: "G-TOPO-1", releases: all, preset: "dgx-h100", want: Info, whyHas: "8 rank(s) on 1 NCCL node(s)"},
	{name: "P2P and SHM off split the host", rule: "G-TOPO-1", releases: all, preset: "v100x4", env: Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"},
		want: Info, whyHas: "4 rank(s) on 4 NCCL node(s) (1 host(s), GPUs without P2P or SHM between them are separate nodes)"},
	{name: "an MNNVL clique is one node", rule: "G-TOPO-1", releases: all, preset: "gb200-nvl72", opts: PresetOptions{Nodes: 2}, want: Info, whyHas: "8 rank(s) on 1 NCCL node(s) (2 host(s), MNNVL cliques fused)"},
	{name: "the ring search's line", rule: "G-GRAPH-SEARCH-1", releases: all, preset: "dgx-h100", want: Info, logHas: "Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1"},
	// the line public 8×H100 single-node logs of NCCL 2.27/2.28 print
	{name: "channel summary", rule: "G-GRAPH-CHANNELS-1", releases: r28, preset: "dgx-h100", want: Info, logHas: "24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer"},
	{name: "SendRecv takes the p2p path", rule: "G-SEL-P2P-1", releases: all, preset: "dgx-h100", op: &Op{Func: SendRecv, Count: 1 << 20, DataType: Float32}, want: Pass, whyHas: "the p2p path on"},
	{name: "AllToAll takes the p2p path", rule: "G-SEL-P2P-1", releases: all, preset: "dgx-a100", op: &Op{Func: AllToAll, Count: 64, DataType: Int8}, want: Pass, whyHas: "no cost table"},
	{name: "a call becomes a task", rule: "G-SEL-APPEND-1", releases: all, preset: "dgx-a100", op: arOp(1 << 20), want: Pass},
	{name: "empty call discarded", rule: "G-SEL-APPEND-1", releases: all, preset: "dgx-a100", op: &Op{Func: AllReduce, DataType: Float32}, want: Info, whyHas: "discards"},
	{name: "fp8 reduction below sm90", rule: "G-SEL-APPEND-1", releases: r28, preset: "dgx-a100", op: &Op{Func: Reduce, Count: 4, DataType: Float8e4m3}, want: Fail,
		logHas: "FP8 reduction support begins with sm90 capable devices."},
	{name: "fp8 reduction on sm90", rule: "G-SEL-APPEND-1", releases: r28, preset: "dgx-h100", op: &Op{Func: Reduce, Count: 4, DataType: Float8e4m3}, want: Pass},
	{name: "intra-node P2P", rule: "G-TRANSPORT-1", releases: all, preset: "dgx-h100", want: Pass},
	{name: "P2P and SHM off: NET", rule: "G-TRANSPORT-1", releases: all, preset: "v100x4", env: Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}, want: Fail, whyHas: "NET/Socket"},
	{name: "one process per GPU", rule: "G-PROC-1", releases: r28, preset: "dgx-h100", want: Info, logHas: "Check P2P Type isAllDirectP2p 1 directMode 0"},
	{name: "one process per node", rule: "G-PROC-1", releases: r28, preset: "dgx-h100", mutate: func(s *System) { s.Procs = ProcsPerNode }, want: Info,
		whyHas: "nvlsRegSupport 0", logHas: "Check P2P Type isAllDirectP2p 1 directMode 1"},
	{name: "P2P connections of one process", rule: "G-TRANSPORT-CONN-1", releases: all, preset: "dgx-h100", mutate: func(s *System) { s.Procs = ProcsPerNode }, want: Info,
		whyHas: "via P2P/direct pointer"},
	{name: "no intra-node connection", rule: "G-TRANSPORT-CONN-1", releases: all, preset: "dgx-h100", mutate: oneGPU, want: Skip},
	{name: "P2P level LOC and SHM off: the host splits, NET", rule: "G-TRANSPORT-1", releases: all, preset: "h200x2", env: Env{"NCCL_P2P_LEVEL": "LOC", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"}, want: Fail, whyHas: "2 NCCL nodes and reach each other through NET/Socket"},

	// The model.
	{name: "PAT with one GPU per node", rule: "G-PAT-1", releases: r28, preset: "dgx-h100", opts: PresetOptions{Nodes: 2}, mutate: oneGPU, want: Pass},
	{name: "PAT needs one GPU per node", rule: "G-PAT-1", releases: r28, preset: "dgx-h100", opts: PresetOptions{Nodes: 2}, want: Fail},
	{name: "PAT forced", rule: "G-PAT-1", releases: r28, preset: "dgx-h100", opts: PresetOptions{Nodes: 2}, env: Env{"NCCL_PAT_ENABLE": "1"}, want: Pass},
	{name: "graphs have channels", rule: "G-TUNE-BW-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"}, want: Pass},
	{name: "empty graphs", rule: "G-TUNE-BW-1", releases: all, preset: "v100x4", want: Fail},
	{name: "2.24+ grammar rejects an unknown name", rule: "G-SEL-PARSE-2", releases: r28, preset: "v100x4", env: Env{"NCCL_ALGO": "Ring, Tree"}, want: Fail,
		logHas: `Unrecognized element token " Tree" when parsing "Ring, Tree"`},
	{name: "2.24+ grammar needs prefixes after the first", rule: "G-SEL-PARSE-2", releases: r28, preset: "v100x4", env: Env{"NCCL_ALGO": "allreduce:tree;ring"}, want: Fail,
		logHas: `All entries except the first must have a prefix: "allreduce:tree;ring"`},
	{name: "2.24+ grammar per function", rule: "G-SEL-PARSE-2", releases: r28, preset: "v100x4", env: Env{"NCCL_ALGO": "allreduce:tree;allgather:ring"}, want: Info},
	{name: "2.22 ignores unknown names", rule: "G-SEL-PARSE-1", releases: r22, preset: "v100x4", env: Env{"NCCL_ALGO": "Ring, Tree"}, want: Info},
	{name: "Ring restored", rule: "G-TUNE-RINGRESTORE-1", releases: r22, preset: "v100x4", env: Env{"NCCL_ALGO": "NVLS"}, want: Pass},
	{name: "nothing to restore", rule: "G-TUNE-RINGRESTORE-1", releases: r22, preset: "v100x4", want: Skip},
	{name: "tuner library", rule: "G-TUNER-LIB-1", releases: all, preset: "v100x4", mutate: withLib(tunerLibrary), want: Pass},
	{name: "no tuner library", rule: "G-TUNER-LIB-1", releases: all, preset: "dgx-h100", want: Fail},
	{name: "NCCL_TUNER_PLUGIN=none", rule: "G-TUNER-LIB-1", releases: r28, preset: "v100x4", mutate: withLib(tunerLibrary), env: Env{"NCCL_TUNER_PLUGIN": "none"}, want: Fail},
	{name: "tuner ABI", rule: "G-TUNER-ABI-1", releases: all, preset: "v100x4", mutate: withLib(tunerLibrary), want: Pass},
	{name: "no tuner symbol in the net plugin", rule: "G-TUNER-ABI-1", releases: all, preset: "v100x4", want: Info},
	{name: "tuner library without a tuner symbol", rule: "G-TUNER-ABI-1", releases: all, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/tuner/libnccl-tuner.so", InLoaderPath: true}), want: Fail},
	{name: "tuner init", rule: "G-TUNER-INIT-1", releases: all, preset: "v100x4", mutate: withLib(tunerLibrary), want: Pass},
	{name: "tuner init fails", rule: "G-TUNER-INIT-1", releases: all, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/tuner/libnccl-tuner.so", InLoaderPath: true, TunerSymbols: []int{3}, Tuner: &tuning.TunerBehaviour{Name: "broken", InitError: "no config"}}), want: Fail},

	// Per operation.
	{name: "CollNet supports float sum", rule: "G-SEL-OPSUP-1", releases: all, preset: "dgx-h100", opts: PresetOptions{SHARP: true, Nodes: 2}, env: Env{"NCCL_COLLNET_ENABLE": "1"},
		op: arOp(1 << 20), want: Pass},
	{name: "tuner forces a cell", rule: "G-TUNER-CALL-1", releases: all, preset: "v100x4", mutate: withLib(tunerLibrary), op: arOp(1 << 20), want: Pass},
	{name: "tuner un-ignores a cell", rule: "G-TUNER-CALL-1", releases: all, preset: "v100x4",
		mutate: withLib(Library{Path: "/opt/tuner/libnccl-tuner.so", InLoaderPath: true, TunerSymbols: []int{3}, Tuner: &tuning.TunerBehaviour{Name: "rogue",
			Rules: []tuning.TunerRule{{Func: "allreduce", Algo: "NVLS", Proto: "Simple", Cost: 0}}}}), op: arOp(1 << 20), want: Fail, whyHas: "does not re-validate"},
	{name: "one legal cell", rule: "G-SEL-PICK-1", releases: all, preset: "v100x4", env: Env{"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"}, op: arOp(1 << 20), want: Pass},
	{name: "nothing to pick", rule: "G-SEL-PICK-1", releases: r28, preset: "v100x4", env: Env{"NCCL_ALGO": "NVLS"}, op: arOp(1 << 20), want: Fail},
	{name: "Ring backup", rule: "G-SEL-BACKUP-1", releases: r22, preset: "dgx-h100", env: Env{"NCCL_ALGO": "NVLS"}, op: int8Op(1 << 20), want: Pass},
	{name: "Ring restored instead of a backup", rule: "G-SEL-BACKUP-1", releases: r22, preset: "v100x4", env: Env{"NCCL_ALGO": "Tree"}, op: agOp(1 << 20), want: Skip},
	{name: "no backup either", rule: "G-SEL-BACKUP-1", releases: r22, preset: "v100x4", env: Env{"NCCL_PROTO": "^LL,LL128,Simple"}, op: arOp(1 << 20), want: Fail,
		logHas: "Error : no algorithm/protocol available"},
	{name: "found a cell: no error", rule: "G-SEL-ERR-1", releases: r28, preset: "v100x4", op: arOp(1 << 20), want: Skip},
	{name: "NCCL_ALGO=Tree fails AllGather", rule: "G-SEL-ERR-1", releases: r28, preset: "v100x4", env: Env{"NCCL_ALGO": "Tree"}, op: agOp(1 << 20), want: Fail,
		logHas: "Error : no algorithm/protocol available for function AllGather with datatype ncclInt8. NCCL_ALGO was set to Tree."},
}

func int8Op(bytes int64) *Op {
	o, _ := OpFromBytes(AllReduce, bytes, Int8, Sum, 0)
	return &o
}

func agOp(bytes int64) *Op {
	o, _ := OpFromBytes(AllGather, bytes, Int8, Sum, 0)
	return &o
}

func sixteenGPUs(s *System) {
	for i := range s.Nodes {
		g := s.Nodes[i].GPUs
		for j := range 8 {
			x := g[j]
			x.Dev = 8 + j
			g = append(g, x)
		}
		s.Nodes[i].GPUs = g
	}
}

func oneGPU(s *System) {
	for i := range s.Nodes {
		s.Nodes[i].GPUs = s.Nodes[i].GPUs[:1]
	}
}

func runCase(t *testing.T, v Version, c ruleCase) (*Comm, Trace) {
	t.Helper()
	sys, err := Preset(c.preset, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.mutate != nil {
		c.mutate(sys)
	}
	comm, err := Init(MustLoad(v), sys, c.env)
	if err != nil {
		t.Fatal(err)
	}
	op := c.op
	if op == nil {
		op = arOp(1 << 20)
	}
	_, tr, err := comm.Select(*op)
	if err != nil {
		t.Fatal(err)
	}
	return comm, tr.Trace()
}

func TestRuleCases(t *testing.T) {
	for _, c := range ruleCases {
		for _, v := range c.releases {
			t.Run(fmt.Sprintf("%s/%s/%s", v, c.rule, c.name), func(t *testing.T) {
				_, tr := runCase(t, v, c)
				var got *Verdict
				for i := range tr {
					if tr[i].Rule == c.rule && (tr[i].Scope == "" || tr[i].Scope == "op") {
						got = &tr[i]
						break
					}
				}
				if got == nil {
					t.Fatalf("rule %s is not in the %s trace", c.rule, v)
				}
				if got.Outcome != c.want {
					t.Errorf("%s: got %s (%s), want %s", c.rule, got.Outcome, got.WhyText(), c.want)
				}
				if c.whyHas != "" && !strings.Contains(got.WhyText(), c.whyHas) {
					t.Errorf("%s: why %q does not contain %q", c.rule, got.WhyText(), c.whyHas)
				}
				if c.logHas != "" {
					found := false
					for _, l := range append(slices.Clone(got.Log), got.Debug...) {
						if strings.HasPrefix(l, c.logHas) {
							found = true
						}
					}
					if !found {
						t.Errorf("%s: log %q has no line starting %q", c.rule, got.Log, c.logHas)
					}
				}
			})
		}
	}
}

// TestSourceGatesPassAndFail checks that each of the design chapter's 28
// source gates (library discovery through the CollNet matrix) has a case
// that makes it pass and one that makes it fail (or, for a gate that cannot
// fail on NCCL's own terms, one where it does not apply).
func TestSourceGatesPassAndFail(t *testing.T) {
	source := []RuleID{"G-NET-LIB-1", "G-NET-LIB-2", "G-NET-ABI-1", "G-COLLNET-ABI-1", "G-COLLNET-ABI-2", "G-NET-STATE-1",
		"G-NET-IB-1", "G-NET-SOCK-1", "G-NET-SEL-1", "G-NET-ABI-2", "G-NET-SEL-2", "G-MNNVL-1", "G-COLLNET-PLUGIN-1",
		"G-COLLNET-ENV-1", "G-NVLS-ENV-1", "G-NVLS-EARLY-1", "G-NVLS-CAP-1", "G-NVLS-CHAN-1", "G-COLLNET-GRAPH-1",
		"G-NVLS-GRAPH-1", "G-COLLNET-CONS-1", "G-NVLS-CONS-1", "G-COLLNET-THRESH-1", "G-COLLNET-ARITY-1",
		"G-NVLS-SETUP-1", "G-NVLSTREE-1", "G-COLLNET-SETUP-1", "G-COLLNET-MATRIX-1"}
	if len(source) != 28 {
		t.Fatalf("%d source gates listed, want 28", len(source))
	}
	// Each gate needs a case for both ways NCCL's code can go. Most pass or
	// fail; a few cannot fail, and their other way is to be skipped: LIB-2
	// fails when nothing opened and is skipped when a library opens; the
	// NVLS channel count, the CollNet graph search and the CollNet matrix act
	// only where their feature is on.
	ways := func(id RuleID) [2][]Outcome {
		switch id {
		case "G-NET-LIB-2":
			return [2][]Outcome{{Fail}, {Skip}}
		case "G-NVLS-CHAN-1", "G-COLLNET-GRAPH-1", "G-COLLNET-MATRIX-1":
			return [2][]Outcome{{Pass, Info}, {Skip}}
		}
		return [2][]Outcome{{Pass, Info}, {Fail}}
	}
	for _, id := range source {
		var seen [2]bool
		w := ways(id)
		for _, c := range ruleCases {
			if c.rule != id {
				continue
			}
			for i := range w {
				if slices.Contains(w[i], c.want) {
					seen[i] = true
				}
			}
		}
		if !seen[0] || !seen[1] {
			t.Errorf("%s: a case that goes %v: %v; one that goes %v: %v", id, w[0], seen[0], w[1], seen[1])
		}
	}
}

// TestEveryRuleHasACase keeps the case table complete as rules are added.
func TestEveryRuleHasACase(t *testing.T) {
	covered := map[RuleID]bool{}
	for _, c := range ruleCases {
		covered[c.rule] = true
	}
	// Rules that only record information and are exercised through the
	// scenario goldens rather than a pass/fail case.
	infoOnly := map[RuleID]bool{"G-ENV-SRC-1": true, "G-TOPO-1": true, "G-GRAPH-SEARCH-1": true, "G-GRAPH-CHANNELS-1": true, "G-EXEC-RTCONN-2": true,
		"G-TUNE-IMPL-1": true, "G-TUNE-BW-2": true, "G-TUNE-EN-1": true, "G-TUNE-PROTO-1": true, "G-TUNE-TABLE-1": true,
		"G-SEL-SIDE-1": true, "G-SEL-PRUNE-1": true, "G-SEL-CTAPOL-1": true, "G-EXEC-RTCONN-1": true, "G-EXEC-ERR-1": true,
		// the group-planning rules: TestSelectGroupVerdicts, per release
		"G-GROUP-PLAN-1": true, "G-REG-IPC-1": true, "G-REG-UB-1": true,
		// and TestPlanBudgetSplitsGroups
		"G-SCHED-BUDGET-1": true,
		// the symmetric work ranges: TestSymRangeGroup, per release
		"G-SCHED-SYMRANGE-1": true,
		// TestSelectGroupRegisterFallback, per release
		"G-REG-SKIP-1": true,
		// the send/recv planner: TestSelectGroupP2P, per release
		"G-SCHED-P2P-1": true, "G-SCHED-P2P-2": true,
		// an in-place send/recv to self: the golden package's TestP2PSelfInPlaceGolden,
		// per release (golden/testdata/p2p_self.txt)
		"G-SCHED-P2P-3": true,
		// send/recv registration: TestP2PRegistered, per release
		"G-REG-P2P-1": true,
		// one-sided calls and host-memory windows: TestRMAGates,
		// TestHierCEAndHostWindows, per release
		"G-RMA-OP-1": true, "G-WIN-HOST-1": true,
		// device communicators and windows over several cuMem segments:
		// TestDevCommCreate, TestWindowSegments, per release
		"G-DEVCOMM-1": true, "G-WIN-SEG-1": true,
		// CollNet's user buffers and the registered proxy op:
		// TestRegCollNetRule, TestRegProxyOp, per release
		"G-REG-COLLNET-1": true, "G-REG-PROXY-1": true,
		// CollNetDirect's IPC peers and the CollNet proxy's re-split:
		// TestRegCollNetIPC, TestRegCollNetSplit, per release
		"G-REG-COLLNET-IPC-1": true, "G-REG-COLLNET-SPLIT-1": true,
		// CollNet receives' flush, iflush or gdrcopy: TestCollNetFlush
		// (2.18.6, 2.19.1, 2.28.9, 2.30.7) and sim's TestCollNetFlushLatency
		"G-COLLNET-FLUSH-1": true,
		// several device communicators, their GIN queues and NCCL_GIN_TYPE:
		// TestDevCommShared, TestDevCommQueue, TestDevCommGinType, per release
		"G-DEVCOMM-SHARE-1": true, "G-DEVCOMM-QUEUE-1": true, "G-DEVCOMM-GINTYPE-1": true,
		// ncclDevCommDestroy and GIN signal kinds: TestDevCommDestroy,
		// TestDevCommSignals, per release
		"G-DEVCOMM-DESTROY-1": true, "G-DEVCOMM-SIGNAL-1": true}
	for _, v := range Releases {
		for _, r := range MustLoad(v).Rules() {
			// the group-call rules: TestGroupSemantics and
			// TestEveryGroupRuleIsExercised
			if !covered[r.ID] && !infoOnly[r.ID] && !r.AtCall() {
				t.Errorf("%s: rule %s has no case in ruleCases", v, r.ID)
			}
		}
	}
}
