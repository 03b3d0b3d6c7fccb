package spec

import "testing"

// TestUnpackDouble: ncclTopoPostset doubles the channels of an UNPACK
// network device across nodes, below 16, from 2.22.3
// (topo.Params.UnpackDouble, NCCL_UNPACK_DOUBLE_NCHANNELS); the releases
// before it have no such step. Two h200x2 nodes on an UNPACK plugin search
// 6 channels: 12 after the doubling every release does, 24 from 2.22.3.
func TestUnpackDouble(t *testing.T) {
	unpack := Library{Path: "/opt/gpudirect/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{8, 7},
		Net: &NetBackend{Name: "FasTrak", Devices: 8, DeviceType: "unpack", DeviceVersion: 7}}
	for _, tc := range []struct {
		v    Version
		env  Env
		want int
	}{
		{V2_19_4, Env{}, 12}, {V2_20_3, Env{}, 12}, {V2_20_5, Env{}, 12}, {V2_21_5, Env{}, 12},
		{V2_22_3, Env{}, 24}, {V2_22_3, Env{"NCCL_UNPACK_DOUBLE_NCHANNELS": "0"}, 12}, {V2_28_9, Env{}, 24},
	} {
		s, err := Preset("h200x2", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Nodes {
			s.Nodes[i].Libs = append([]Library{unpack}, s.Nodes[i].Libs...)
		}
		c, err := Init(MustLoad(tc.v), s, tc.env)
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		if c.Net != "FasTrak" || c.Topo.NChannelsSearched != 6 {
			t.Fatalf("%s: network %s, %d searched channels: want FasTrak and 6", tc.v, c.Net, c.Topo.NChannelsSearched)
		}
		if c.Topo.NChannels != tc.want {
			t.Errorf("%s %v: nChannels %d, want %d", tc.v, tc.env, c.Topo.NChannels, tc.want)
		}
	}
}
