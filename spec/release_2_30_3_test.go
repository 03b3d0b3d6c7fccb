package spec

import (
	"strconv"
	"testing"
)

// TestNVLSTuningSM100: from 2.30.3 ncclNvlsTuning gives an sm100
// communicator of more than two nodes whose NICs reach 48 GB/s (but not 96)
// 24 NVLS channels instead of 32; two nodes keep 32, one node its 24 of
// one NVLink domain, and NCCL_NVLS_NCHANNELS still overrides. On four DGX
// B200 nodes a 64 MiB AllReduce runs NVLSTree/Simple on those channels.
func TestNVLSTuningSM100(t *testing.T) {
	cases := []struct {
		name   string
		v      Version
		nodes  int
		env    Env
		nvls   int
		arAlgo string // the 64 MiB AllReduce, "" when not checked
	}{
		{"2.29.7 four nodes", V2_29_7, 4, nil, 32, ""},
		{"2.30.3 four nodes", V2_30_3, 4, nil, 24, "NVLSTree/Simple 24"},
		{"2.30.3 two nodes", V2_30_3, 2, nil, 32, ""},
		{"2.30.3 one node", V2_30_3, 1, nil, 24, ""},
		{"2.30.3 four nodes NCCL_NVLS_NCHANNELS=16", V2_30_3, 4, Env{"NCCL_NVLS_NCHANNELS": "16"}, 16, "NVLSTree/Simple 16"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := initPreset(t, tc.v, "dgx-b200", tc.nodes, tc.env)
			if c.NVLSChannels != tc.nvls || c.Topo.NvlsChannels != tc.nvls {
				t.Errorf("nvlsChannels %d (topology line %d), want %d", c.NVLSChannels, c.Topo.NvlsChannels, tc.nvls)
			}
			if tc.arAlgo == "" {
				return
			}
			d, _, err := c.Select(Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum})
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Algo.String() + "/" + d.Proto.String() + " " + strconv.Itoa(d.NChannels); got != tc.arAlgo {
				t.Errorf("64 MiB AllReduce: %s, want %s", got, tc.arAlgo)
			}
		})
	}
}
