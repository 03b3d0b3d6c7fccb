package spec

import (
	"testing"

	"github.com/gatesim/gatesim/spec/topo"
)

// pcieA100Pair is two A100s (sm80) and a NIC under one PCIe switch, no
// NVLink: GPU Direct RDMA reads then depend on the release's rule for GPUs
// without an NVLink peer.
const pcieA100Pair = `<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:30:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:31:00.0" class="0x030200" vendor="0x10de" device="0x20b5" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="80" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:32:00.0" class="0x030200" vendor="0x10de" device="0x20b5" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="80" rank="1" gdr="1"/>
      </pci>
      <pci busid="0000:33:00.0" class="0x020000" vendor="0x15b3" device="0x101b" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_0" dev="0" speed="200000" port="1" latency="0" guid="0x0" maxconn="131072" gdr="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>
</system>`

// TestNetConnRules holds each rule of a network connector (G-NET-CONN-GDR-1,
// G-NET-CONN-PXN-1, G-NET-CONN-SHARED-1) at the releases on both sides of
// each change: what sendSetup/recvSetup print after "via NET/<name>/".
func TestNetConnRules(t *testing.T) {
	send := func(kind topo.ConnKind, ch, dev, peer int) topo.ConnQuery {
		return topo.ConnQuery{Kind: kind, Channel: ch, ConnIndex: connIndexOf(kind), Send: true, Dev: dev, PeerDev: peer}
	}
	recv := func(kind topo.ConnKind, ch, dev int) topo.ConnQuery {
		return topo.ConnQuery{Kind: kind, Channel: ch, ConnIndex: connIndexOf(kind), Dev: dev, PeerDev: dev}
	}
	for _, tc := range []struct {
		rule    string
		v       Version
		machine string // a preset, or "pcie-a100" (pcieA100Pair)
		env     Env
		q       topo.ConnQuery
		want    string
	}{
		// GDR reads without an NVLink peer: every arch until 2.18.6, below
		// sm80 only from 2.19.1 (Params.GdrReadAllArchs)
		{"G-NET-CONN-GDR-1", V2_18_6, "pcie-a100", nil, send(topo.ConnP2P, 0, 0, 0), "0/Shared"},
		{"G-NET-CONN-GDR-1", V2_19_1, "pcie-a100", nil, send(topo.ConnP2P, 0, 0, 0), "0/GDRDMA/Shared"},
		{"G-NET-CONN-GDR-1", V2_18_6, "pcie-a100", nil, recv(topo.ConnP2P, 0, 0), "0/GDRDMA/Shared"},
		{"G-NET-CONN-GDR-1", V2_19_1, "pcie-a100", Env{"NCCL_NET_GDR_READ": "0"}, send(topo.ConnP2P, 0, 0, 0), "0/Shared"},
		// the PCI mapping of a C2C-attached GPU (2.26.2+, Params.GdrModePCI)
		// whose NIC is not behind its own CPU's C2C: with
		// NCCL_NET_GDR_C2C=0 the distance stays PHB (P2C from 2.27.3);
		// from 2.29.2 a P2C distance is the direct case (Params.GdrLevelP2C)
		{"G-NET-CONN-GDR-1", V2_25_1, "gb200", Env{"NCCL_NET_GDR_C2C": "0", "NCCL_NET_GDR_LEVEL": "PHB"}, recv(topo.ConnRing, 0, 0), "4/GDRDMA"},
		{"G-NET-CONN-GDR-1", V2_26_2, "gb200", Env{"NCCL_NET_GDR_C2C": "0", "NCCL_NET_GDR_LEVEL": "PHB"}, recv(topo.ConnRing, 0, 0), "4/GDRDMA(PCI)"},
		{"G-NET-CONN-GDR-1", V2_28_9, "gb200", Env{"NCCL_NET_GDR_C2C": "0", "NCCL_NET_GDR_LEVEL": "PHB"}, recv(topo.ConnRing, 0, 0), "0/GDRDMA(PCI)"},
		{"G-NET-CONN-GDR-1", V2_29_2, "gb200", Env{"NCCL_NET_GDR_C2C": "0", "NCCL_NET_GDR_LEVEL": "PHB"}, recv(topo.ConnRing, 0, 0), "0/GDRDMA"},
		{"G-NET-CONN-GDR-1", V2_28_9, "gb200", nil, recv(topo.ConnRing, 0, 0), "0/GDRDMA"},
		// the default level: P2C read as C2C within PXB until 2.28.9; from
		// 2.29.2 P2C itself, so NCCL_NET_GDR_LEVEL=PXB turns GDR off
		{"G-NET-CONN-GDR-1", V2_28_9, "gb200", Env{"NCCL_NET_GDR_LEVEL": "PXB"}, recv(topo.ConnRing, 0, 0), "0/GDRDMA"},
		{"G-NET-CONN-GDR-1", V2_29_2, "gb200", Env{"NCCL_NET_GDR_LEVEL": "PXB"}, recv(topo.ConnRing, 0, 0), "0"},
		// a send to a peer whose NIC has an NVLink-local GPU goes through
		// that GPU's rank (PXN); a receive never does; NCCL_PXN_DISABLE=1
		// keeps the rank's own NIC
		{"G-NET-CONN-PXN-1", V2_22_3, "dgx-h100", nil, send(topo.ConnP2P, 0, 0, 1), "1(1)/GDRDMA/Shared"},
		{"G-NET-CONN-PXN-1", V2_30_7, "dgx-h100", nil, send(topo.ConnP2P, 0, 0, 1), "1(1)/GDRDMA/Shared"},
		{"G-NET-CONN-PXN-1", V2_30_7, "dgx-h100", nil, recv(topo.ConnP2P, 0, 1), "1/GDRDMA/Shared"},
		{"G-NET-CONN-PXN-1", V2_22_3, "dgx-h100", Env{"NCCL_PXN_DISABLE": "1"}, send(topo.ConnP2P, 0, 0, 1), "0/GDRDMA/Shared"},
		// a P2C-local GPU relays with NCCL_PXN_C2C from 2.27.6
		// (Params.PXNP2PType), and from 2.30.3 only when it writes to the
		// NIC over GDR (Params.PXNP2PNeedsGDR)
		{"G-NET-CONN-PXN-1", V2_27_5, "gb200", Env{"NCCL_PXN_C2C": "1"}, send(topo.ConnP2P, 0, 0, 2), "0/GDRDMA/Shared"},
		{"G-NET-CONN-PXN-1", V2_27_6, "gb200", Env{"NCCL_PXN_C2C": "1"}, send(topo.ConnP2P, 0, 0, 2), "2(2)/GDRDMA/Shared"},
		{"G-NET-CONN-PXN-1", V2_29_7, "gb200", Env{"NCCL_NET_GDR_C2C": "0"}, send(topo.ConnP2P, 0, 0, 2), "2(2)/Shared"},
		{"G-NET-CONN-PXN-1", V2_30_3, "gb200", Env{"NCCL_NET_GDR_C2C": "0"}, send(topo.ConnP2P, 0, 0, 2), "0/Shared"},
		// shared buffers: point-to-point connectors only
		{"G-NET-CONN-SHARED-1", V2_28_9, "dgx-h100", nil, recv(topo.ConnRing, 0, 0), "0/GDRDMA"},
		{"G-NET-CONN-SHARED-1", V2_28_9, "dgx-h100", nil, recv(topo.ConnTree, 0, 0), "0/GDRDMA"},
	} {
		var c *Comm
		if tc.machine == "pcie-a100" {
			sys, err := SystemFromTopology("pcie-a100.xml", []byte(pcieA100Pair), 2)
			if err != nil {
				t.Fatal(err)
			}
			env := tc.env
			if env == nil {
				env = Env{}
			}
			if c, err = Init(MustLoad(tc.v), sys, env); err != nil || c.Err != nil {
				t.Fatalf("%s pcie-a100: %v %v", tc.v, err, c.Err)
			}
		} else {
			env := Env{}
			for k, v := range tc.env {
				env[k] = v
			}
			if tc.machine == "gb200" {
				env["NCCL_MNNVL_ENABLE"] = "0" // two trays as two network nodes
				env["NCCL_NVLS_ENABLE"] = "0"
			}
			c = initPreset(t, tc.v, tc.machine, 2, env)
		}
		node := &c.Topo.Nodes[0]
		conn, err := node.NetConn(tc.q)
		if err != nil {
			t.Fatalf("%s %s %s %v %+v: %v", tc.rule, tc.v, tc.machine, tc.env, tc.q, err)
		}
		proxy, _ := node.RankOfDev(conn.ProxyDev)
		if got := conn.Suffix(proxy); got != tc.want {
			t.Errorf("%s %s %s %v %+v: %q, want %q", tc.rule, tc.v, tc.machine, tc.env, tc.q, got, tc.want)
		}
	}
}

func connIndexOf(k topo.ConnKind) int {
	if k == topo.ConnP2P {
		return 1
	}
	return 0
}

// c2cPCIePair is two Hopper GPUs whose local CPU is C2C-attached (<c2c>)
// and a NIC under each GPU's PCIe switch: a NIC within PXB of a
// C2C-attached GPU, where NCCL flushes GDR receives from 2.26.2 whatever
// the architecture (ncclTopoNeedFlush's C2C case).
const c2cPCIePair = `<system version="1">
  <cpu numaid="0" arch="arm64" vendor="NVIDIA">
    <pci busid="0000:01:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:02:00.0" class="0x030200" vendor="0x10de" device="0x2342" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1">
          <c2c bw="40000" count="10"/>
        </gpu>
      </pci>
      <pci busid="0000:03:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_0" dev="0" speed="400000" port="1" latency="0" guid="0x0" maxconn="131072" gdr="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>
</system>`

// TestNetFlushRules holds G-NET-CONN-FLUSH-1 (recvSetup's needFlush,
// ncclTopoNeedFlush) at the releases on both sides of each change: a GDR
// receive flushes below sm90 always, on Hopper only while
// NCCL_NET_FORCE_FLUSH defaults to 1 (to 2.18.6), and from 2.26.2 where a
// C2C-attached GPU's NIC is within PXB; NCCL's IB with
// NCCL_GDR_FLUSH_DISABLE=1 keeps the decision but its iflush posts
// nothing; a send, or a receive without GDR, has no flush.
func TestNetFlushRules(t *testing.T) {
	recv := topo.ConnQuery{Kind: topo.ConnRing}
	send := topo.ConnQuery{Kind: topo.ConnRing, Send: true}
	for _, tc := range []struct {
		v         Version
		machine   string // a preset, or "c2c-pcie" (c2cPCIePair)
		env       Env
		q         topo.ConnQuery
		want      string
		ringFlush bool
	}{
		// sm90: NCCL_NET_FORCE_FLUSH's default 1 until 2.18.6, 0 from 2.19.1
		{V2_18_1, "dgx-h100", nil, recv, "iflush", true},
		{V2_18_6, "dgx-h100", nil, recv, "iflush", true},
		{V2_19_1, "dgx-h100", nil, recv, "none", false},
		{V2_30_7, "dgx-h100", nil, recv, "none", false},
		{V2_28_9, "dgx-h100", Env{"NCCL_NET_FORCE_FLUSH": "1"}, recv, "iflush", true},
		{V2_18_6, "dgx-h100", Env{"NCCL_NET_FORCE_FLUSH": "0"}, recv, "none", false},
		// below sm90 every release flushes, the variable aside
		{V2_28_9, "dgx-a100", Env{"NCCL_NET_FORCE_FLUSH": "0"}, recv, "iflush", true},
		// NCCL's IB: the proxy calls iflush, which posts no read
		{V2_18_6, "dgx-h100", Env{"NCCL_GDR_FLUSH_DISABLE": "1"}, recv, "iflush no-op", false},
		{V2_28_9, "dgx-a100", Env{"NCCL_GDR_FLUSH_DISABLE": "1"}, recv, "iflush no-op", false},
		// sends and receives without GDR never flush
		{V2_18_6, "dgx-h100", nil, send, "-", true},
		{V2_18_6, "dgx-h100", Env{"NCCL_NET_GDR_LEVEL": "LOC"}, recv, "-", false},
		// a C2C-attached GPU's NIC within PXB (Params.FlushC2C)
		{V2_25_1, "c2c-pcie", nil, recv, "none", false},
		{V2_26_2, "c2c-pcie", nil, recv, "iflush(C2C)", true},
		{V2_30_7, "c2c-pcie", nil, recv, "iflush(C2C)", true},
		{V2_30_7, "c2c-pcie", Env{"NCCL_NET_FORCE_FLUSH": "1"}, recv, "iflush", true},
	} {
		env := Env{}
		for k, v := range tc.env {
			env[k] = v
		}
		var c *Comm
		if tc.machine == "c2c-pcie" {
			sys, err := SystemFromTopology("c2c-pcie.xml", []byte(c2cPCIePair), 2)
			if err != nil {
				t.Fatal(err)
			}
			if c, err = Init(MustLoad(tc.v), sys, env); err != nil || c.Err != nil {
				t.Fatalf("%s c2c-pcie: %v %v", tc.v, err, c.Err)
			}
		} else {
			c = initPreset(t, tc.v, tc.machine, 2, env)
		}
		conn, err := c.Topo.Nodes[0].NetConn(tc.q)
		if err != nil {
			t.Fatalf("%s %s %v: %v", tc.v, tc.machine, tc.env, err)
		}
		if got := conn.FlushText(tc.q.Send); got != tc.want {
			t.Errorf("%s %s %v send=%v: flush %q, want %q", tc.v, tc.machine, tc.env, tc.q.Send, got, tc.want)
		}
		if c.Topo.RingNetFlush != tc.ringFlush {
			t.Errorf("%s %s %v: RingNetFlush %v, want %v", tc.v, tc.machine, tc.env, c.Topo.RingNetFlush, tc.ringFlush)
		}
	}
}
