package spec

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
)

// dualPortHosts are two hosts of two A100s and one dual-port RoCE NIC
// (two PCI functions of one device: the IB fuses its ports at the
// default NCCL_NET_MERGE_LEVEL PORT).
func dualPortHosts() *System {
	sys := &System{Name: "dual-port"}
	nd := Node{CPU: CPU{Arch: "x86_64", Vendor: "Intel", Model: "skl", Sockets: 1},
		GPUs:         []GPU{{Name: "A100", Dev: 0, SM: 80}, {Name: "A100", Dev: 1, SM: 80}},
		IPInterfaces: []string{"eth0"}, Driver: Driver{Verbs: true, CuMem: true, CUDA: 12080}}
	for i, b := range []string{"0000:16:00.0", "0000:16:00.1"} {
		nd.NICs = append(nd.NICs, NIC{Name: "mlx5_" + string(rune('0'+i)), Port: 1, LinkLayer: "RoCE", SpeedMbps: 100000, Active: true, GDR: true, BusID: b})
	}
	for _, h := range []string{"node0", "node1"} {
		n := nd
		n.Host = h
		sys.Nodes = append(sys.Nodes, n)
	}
	return sys
}

// TestIBRailPlaneFromHCA (topo.IfListRailPlane, G-NET-IB-1,
// G-TOPO-VNIC-1): 2.30.7 reads NCCL_IB_HCA items as
// name:port:rail:plane. The IB's "Using" line prints each port's rail and
// plane, its per-port virtual devices carry them, a fused device the
// common rail (else -1) and the virtual bit with a bit per port's plane
// index; the rail reaches the topology, where NCCL_NET_MERGE_POLICY=RAIL
// fuses only ports of one rail. 2.30.4 reads the same list as ports only.
func TestIBRailPlaneFromHCA(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Version
		env  Env
		want []string
		// fused: the ports became one virtual NIC
		fused bool
	}{
		{"one rail, two planes", V2_30_7, Env{"NCCL_IB_HCA": "mlx5_0:1:3:1,mlx5_1:1:3:2"}, []string{
			"NET/IB : Made virtual device [0] name=mlx5_0 speed=100000 ndevs=1 rail=3 plane=1",
			"NET/IB : Made virtual device [1] name=mlx5_1 speed=100000 ndevs=1 rail=3 plane=2",
			"NET/IB : Using [0]mlx5_0:1:3:1/RoCE [1]mlx5_1:1:3:2/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2 rail=3 plane=16390",
		}, true},
		{"two rails, a plane without a rail", V2_30_7, Env{"NCCL_IB_HCA": "mlx5_0:1:3,mlx5_1:1::5"}, []string{
			"NET/IB : Made virtual device [0] name=mlx5_0 speed=100000 ndevs=1 rail=3 plane=-1",
			"NET/IB : Made virtual device [1] name=mlx5_1 speed=100000 ndevs=1 rail=-1 plane=5",
			"NET/IB : Using [0]mlx5_0:1:3/RoCE [1]mlx5_1:1::5/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2 rail=-1 plane=16387",
		}, true},
		{"RAIL policy: one rail fuses", V2_30_7, Env{"NCCL_IB_HCA": "mlx5_0:1:3,mlx5_1:1:3", "NCCL_NET_MERGE_POLICY": "RAIL"}, []string{
			"NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2 rail=3 plane=16385",
		}, true},
		{"RAIL policy: two rails stay apart", V2_30_7, Env{"NCCL_IB_HCA": "mlx5_0:1:3,mlx5_1:1:4", "NCCL_NET_MERGE_POLICY": "RAIL"}, []string{
			"NET/IB : Made virtual device [0] name=mlx5_0 speed=100000 ndevs=1 rail=3 plane=-1",
			"NET/IB : Made virtual device [1] name=mlx5_1 speed=100000 ndevs=1 rail=4 plane=-1",
		}, false},
		{"2.30.4 reads ports only", V2_30_4, Env{"NCCL_IB_HCA": "mlx5_0:1:3:1,mlx5_1:1:3:2"}, []string{
			"NET/IB : Made virtual device [0] name=mlx5_0 speed=100000 ndevs=1",
			"NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2",
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Init(MustLoad(tc.v), dualPortHosts(), tc.env)
			if err != nil || c.Err != nil {
				t.Fatal(err, c.Err)
			}
			var got []string
			for _, v := range c.Trace {
				got = append(append(got, v.Log...), v.Debug...)
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("no line %q in\n  %s", w, strings.Join(got, "\n  "))
				}
			}
			fused := slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "name=mlx5_0+mlx5_1") })
			if fused != tc.fused {
				t.Errorf("ports fused %v, want %v", fused, tc.fused)
			}
		})
	}
}

// TestIfListRailPlaneAtTags (NCCL's git mirror; skipped without it):
// parseStringList reads a rail and a plane exactly at the releases whose
// topo.IfListRailPlane says so, and their IB copies them from the matched
// NCCL_IB_HCA entry and prints them in the "Using" line.
func TestIfListRailPlaneAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	for _, v := range Releases {
		out, err := exec.Command("git", "-C", repo, "show", v.Tag()+":src/misc/utils.cc").Output()
		if err != nil {
			t.Fatal(err)
		}
		reads := strings.Contains(string(out), "ifList[ifNum].rail =") && strings.Contains(string(out), "ifList[ifNum].plane =")
		if got := MustLoad(v).TopoParams.IfListRailPlane; got != reads {
			t.Errorf("%s: parseStringList reads rail and plane: %v, IfListRailPlane %v", v, reads, got)
		}
		if !reads {
			continue
		}
		ib, _ := exec.Command("git", "-C", repo, "grep", "-h", "userIfs\\[userIfId\\]\\.\\(rail\\|plane\\)\\|railId != NCCL_NET_ID_UNDEF", v.Tag(), "--", "src/transport").Output()
		if n := strings.Count(string(ib), "\n"); n < 3 {
			t.Errorf("%s: the IB no longer takes the rail and plane from NCCL_IB_HCA (%d lines)", v, n)
		}
	}
}
