package spec

import (
	"slices"
	"strings"
	"testing"
)

// ofiTopo is one GPU and one EFA NIC behind one PCIe switch (an 8xlarge
// G or P instance as NCCL dumps it).
const ofiTopo = `<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">
    <pci busid="0000:2e:00.0" class="0x060400" vendor="0x1000" device="0xc030" subsystem_vendor="0x1000" subsystem_device="0x100b" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:2f:00.0" class="0x020000" vendor="0x1d0f" device="0xefa3" subsystem_vendor="0x1d0f" subsystem_device="0xefa3" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="rdmap47s0" dev="0" speed="100000" port="1" latency="0" guid="0x0" maxconn="65536" gdr="1"/>
        </nic>
      </pci>
      <pci busid="0000:30:00.0" class="0x030200" vendor="0x10de" device="0x2330" subsystem_vendor="0x10de" subsystem_device="0x16c1" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1"/>
      </pci>
    </pci>
  </cpu>
</system>
`

// ofiSystem is two such nodes with aws-ofi-nccl of version on platform
// as their only plugin, reporting the node's one NIC (Devices -1).
func ofiSystem(t *testing.T, version, platform string) *System {
	t.Helper()
	sys, err := SystemFromTopology("ofi.xml", []byte(ofiTopo), 2)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := OFIPlugin(version, platform)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = slices.Clone(libs)
	}
	return sys
}

func verdictOf(c *Comm, id RuleID) (Verdict, bool) {
	for _, v := range c.Trace {
		if v.Rule == id && v.Scope == "" {
			return v, true
		}
	}
	return Verdict{}, false
}

// TestOFIPluginName: the network NCCL reports for each aws-ofi-nccl
// release under each NCCL release, the ABI it accepts, and the names
// NCCL_NET gives it (P-OFI-NAME-1/2, P-OFI-ABI-1 against G-NET-ABI-1's
// window).
func TestOFIPluginName(t *testing.T) {
	for _, tc := range []struct {
		ofi  string
		nccl Version
		env  Env
		net  string
		abi  int
	}{
		{"1.6.0", V2_18_6, nil, "AWS Libfabric", 6},
		{"1.6.0", V2_22_3, nil, "AWS Libfabric", 6},
		{"1.6.0", V2_28_9, nil, "AWS Libfabric", 6},
		{"1.8.1", V2_22_3, nil, "AWS Libfabric", 7},
		{"1.12.1-aws", V2_23_4, nil, "AWS Libfabric", 8}, // aws-g5-2nodes-efa-2.23.4
		{"1.12.1", V2_28_9, nil, "AWS Libfabric", 8},
		{"1.13.0", V2_22_3, nil, "Libfabric", 8},
		{"1.14.2", V2_25_1, nil, "Libfabric", 9},
		{"1.16.2", V2_27_3, nil, "Libfabric", 10}, // aws-g6e-4gpu-p2p-nvl-2.27.3
		{"1.17.1", V2_28_9, nil, "Libfabric", 10},
		{"1.18.0", V2_28_9, nil, "Libfabric", 11},
		{"1.18.0", V2_29_2, nil, "Libfabric", 11}, // aws-g7e-*-efa-2.29.2
		{"1.19.0", V2_18_6, nil, "Libfabric", 6},
		{"1.21.1", V2_30_7, nil, "Libfabric", 12},
		// the rename of 1.13.0+: NCCL_NET written for the old name still
		// selects the plugin, under the name NCCL_NET gave
		{"1.18.0", V2_29_2, Env{"NCCL_NET": "AWS Libfabric"}, "AWS Libfabric", 11},
		{"1.18.0", V2_29_2, Env{"NCCL_NET": "ofi"}, "OFI", 11},
		{"1.13.0", V2_22_3, Env{"NCCL_NET": "OFI"}, "OFI", 8},
		{"1.18.0", V2_22_3, Env{"NCCL_NET": "Libfabric"}, "Libfabric", 8},
	} {
		name := tc.ofi + "@" + tc.nccl.String() + " NCCL_NET=" + tc.env["NCCL_NET"]
		t.Run(name, func(t *testing.T) {
			c, err := Init(MustLoad(tc.nccl), ofiSystem(t, tc.ofi, "g5.8xlarge"), tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if c.Net != tc.net {
				t.Errorf("network %q, want %q (%s)", c.Net, tc.net, c.NetVia)
			}
			if c.NetPlugin == nil || c.NetPlugin.NetABI != tc.abi {
				t.Errorf("net plugin %+v, want ABI v%d", c.NetPlugin, tc.abi)
			}
		})
	}
}

// TestOFIPluginOldNameNotRenamed: before 1.13.0 the plugin has no rename,
// so NCCL_NET=OFI names no network NCCL has and init fails, as it does.
func TestOFIPluginOldNameNotRenamed(t *testing.T) {
	c, err := Init(MustLoad(V2_22_3), ofiSystem(t, "1.12.1", "g5.8xlarge"), Env{"NCCL_NET": "OFI"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Net == "OFI" || c.Net == "AWS Libfabric" {
		t.Errorf("network %q: 1.12.1 is named AWS Libfabric whatever NCCL_NET says", c.Net)
	}
}

// TestOFIPluginLibraries: which file NCCL opens for the plugin's library
// names (P-OFI-LIB-1/2) through G-NET-LIB-1 of 2.28.9.
func TestOFIPluginLibraries(t *testing.T) {
	for _, tc := range []struct {
		ofi, netPlugin string
		opened         string // "" : none, the internal networks
	}{
		{"1.14.2", "", "libnccl-net.so"},
		{"1.14.2", "ofi", ""},
		{"1.15.0", "", "libnccl-net.so"},
		{"1.15.0", "ofi", "libnccl-net-ofi.so"},
		{"1.18.0", "libnccl-net-ofi.so", "libnccl-net-ofi.so"},
	} {
		t.Run(tc.ofi+" "+tc.netPlugin, func(t *testing.T) {
			env := Env{}
			if tc.netPlugin != "" {
				env["NCCL_NET_PLUGIN"] = tc.netPlugin
			}
			c, err := Init(MustLoad(V2_28_9), ofiSystem(t, tc.ofi, "g7e.8xlarge"), env)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if c.NetPlugin != nil && c.NetPlugin.Found {
				got = c.NetPlugin.OpenedAs
			}
			if got != tc.opened {
				t.Errorf("opened %q, want %q (network %s)", got, tc.opened, c.Net)
			}
			if tc.opened == "" && c.Net == "Libfabric" {
				t.Errorf("network Libfabric without the library")
			}
		})
	}
}

// TestOFIPluginGDR: the platform's GDR (P-OFI-GDR-1) reaches the NETs
// NCCL builds from the plugin's devices (comm->useGdr of the rings) on
// two dgx-h100 nodes, whose NICs could do GDR.
func TestOFIPluginGDR(t *testing.T) {
	for _, tc := range []struct {
		platform string
		gdr      bool
	}{{"p4d.24xlarge", true}, {"g7e.8xlarge", false}} {
		t.Run(tc.platform, func(t *testing.T) {
			sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2, Shared: true})
			if err != nil {
				t.Fatal(err)
			}
			libs, err := OFIPlugin("1.18.0", tc.platform)
			if err != nil {
				t.Fatal(err)
			}
			for i := range sys.Nodes {
				sys.Nodes[i].Libs = libs
			}
			c, err := Init(MustLoad(V2_28_9), sys, Env{"NCCL_PROTO": "simple"})
			if err != nil {
				t.Fatal(err)
			}
			if c.Net != "Libfabric" || c.Topo == nil || c.Topo.RingNetGDR != tc.gdr {
				t.Errorf("network %q, ring GDR %v; want Libfabric and %v", c.Net, c.Topo != nil && c.Topo.RingNetGDR, tc.gdr)
			}
		})
	}
}

// TestOFIPluginProto: without GDR, 1.15.0+ sets NCCL_PROTO=simple unless
// the job did (P-OFI-PROTO-1/2), which the Func/Proto/Algo matrix then
// shows, and the plugin's init lines say so.
func TestOFIPluginProto(t *testing.T) {
	for _, tc := range []struct {
		ofi, platform string
		env           Env
		proto         string // NCCL_PROTO after init ("" unset)
		log           string // a line of the network verdicts
	}{
		{"1.18.0", "p4d.24xlarge", nil, "", "NET/OFI Initializing aws-ofi-nccl 1.18.0"},
		{"1.18.0", "g7e.8xlarge", nil, "simple", "NET/OFI Adding NCCL_PROTO=simple to environment"},
		{"1.18.0", "g7e.8xlarge", Env{"NCCL_PROTO": "LL128"}, "LL128", "NET/OFI Skipping adding NCCL_PROTO=LL128 to environment, already set"},
		{"1.15.0", "g6e.48xlarge", nil, "simple", "NET/OFI Setting NCCL_PROTO='simple' to prevent data corruption (reason: GDR not supported)"},
		{"1.14.2", "g6e.48xlarge", nil, "", "NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR"},
		{"1.12.1-aws", "g5.8xlarge", nil, "", "NET/OFI Initializing aws-ofi-nccl 1.12.1-aws"},
	} {
		t.Run(tc.ofi+" "+tc.platform, func(t *testing.T) {
			c, err := Init(MustLoad(V2_28_9), ofiSystem(t, tc.ofi, tc.platform), tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if c.Net != "Libfabric" && c.Net != "AWS Libfabric" {
				t.Fatalf("network %q: the plugin is not used", c.Net)
			}
			if got := c.Env["NCCL_PROTO"]; got != tc.proto {
				t.Errorf("NCCL_PROTO %q, want %q", got, tc.proto)
			}
			simpleOnly := true
			for f := range c.UserEnable.Proto {
				simpleOnly = simpleOnly && c.UserEnable.Proto[f][LL] <= 0 && c.UserEnable.Proto[f][LL128] <= 0
			}
			if simpleOnly != (tc.proto == "simple") {
				t.Errorf("LL and LL128 off everywhere: %v, want %v", simpleOnly, tc.proto == "simple")
			}
			v, _ := verdictOf(c, "G-NET-STATE-1")
			if !slices.Contains(v.Log, tc.log) {
				t.Errorf("G-NET-STATE-1 log %q lacks %q", v.Log, tc.log)
			}
		})
	}
}

// TestOFIPluginInput: the plugin by name, and the names it refuses.
func TestOFIPluginInput(t *testing.T) {
	for _, tc := range []struct {
		in    string
		named bool
		libs  int
		err   string
	}{
		{"aws-ofi-nccl@1.18.0:g7e.8xlarge", true, 2, ""},
		{"aws-ofi-nccl@v1.12.1-aws:g5.48xlarge", true, 1, ""},
		{"aws-ofi-nccl@1.14.2:p5.48xlarge", true, 1, ""}, // its tuner is a library of its own
		{"aws-ofi-nccl@1.18.0:p5.48xlarge", true, 2, ""}, // its regions are modelled (P-OFI-TUNER-2)
		{"aws-ofi-nccl@1.18.0:p6-b300.48xlarge", true, 2, ""},
		{"aws-ofi-nccl@1.19.0:p5en.48xlarge", true, 2, ""},
		{"aws-ofi-nccl@1.16.0:p6-b200.48xlarge", true, 2, ""},
		{"aws-ofi-nccl@1.21.1:p6-b200.48xlarge", true, 2, ""},
		{"aws-ofi-nccl@1.21.1:p5en.48xlarge", true, 0, "getChunkSize"}, // its chunk sizes are not modelled
		{"aws-ofi-nccl@1.17.3:p6-b300.48xlarge", true, 2, ""},          // no table for it yet: the tuner declines
		{"aws-ofi-nccl@1.18.1:g5.8xlarge", true, 0, "expected one of 1.6.0"},
		{"aws-ofi-nccl@1.18:g5.8xlarge", true, 0, "expected one of"},
		{"aws-ofi-nccl@1.18.0:x9.large", true, 0, "expected an EC2 instance type"},
		{"aws-ofi-nccl@1.18.0", true, 0, "expected aws-ofi-nccl@VERSION:PLATFORM"},
		{"plugins/mine.json", false, 0, ""},
	} {
		libs, named, err := NamedPlugin(tc.in)
		switch {
		case named != tc.named:
			t.Errorf("%s: named %v, want %v", tc.in, named, tc.named)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one saying %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || len(libs) != tc.libs):
			t.Errorf("%s: %d libraries, %v; want %d", tc.in, len(libs), err, tc.libs)
		}
		for _, l := range libs {
			probe := System{Nodes: []Node{{GPUs: []GPU{{SM: 90}}, Libs: []Library{l}}}}
			if err := probe.Validate(); err != nil {
				t.Errorf("%s: %v", tc.in, err)
			}
		}
	}
	bad := Library{Path: "/x/libnccl-net.so", Net: &NetBackend{Name: "X", SetEnv: []PluginEnvSet{{Name: "PATH", Value: "/"}}}}
	if err := (&System{Nodes: []Node{{GPUs: []GPU{{SM: 90}}, Libs: []Library{bad}}}}).Validate(); err == nil || !strings.Contains(err.Error(), "expected an NCCL_* variable") {
		t.Errorf("set_env PATH: %v, want a refusal", err)
	}
}

// TestOFIPluginFacts: every modelled release has exactly one fact of each
// kind that covers it, the facts of one ID follow each other, and each
// names its tag, file and function.
func TestOFIPluginFacts(t *testing.T) {
	for _, s := range ofiReleases {
		v, err := parseOFIVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []RuleID{"P-OFI-ABI-1", "P-OFI-GDR-1"} {
			n := 0
			for _, f := range ofiFacts {
				if f.ID == id && f.holds(v) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: %d facts %s hold, want 1", s, n, id)
			}
		}
		if ofiHas("P-OFI-NAME-1", v) == ofiHas("P-OFI-NAME-2", v) || ofiHas("P-OFI-LIB-1", v) == ofiHas("P-OFI-LIB-2", v) {
			t.Errorf("%s: expected exactly one name fact and one library fact", s)
		}
	}
	// the region tuner's releases are the P-OFI-TUNER-2 rows
	var rows []ofiVersion
	for _, f := range ofiFacts {
		if f.ID == "P-OFI-TUNER-2" {
			rows = append(rows, f.Since)
		}
	}
	if len(rows) != len(ofiRegionReleases) {
		t.Errorf("%d P-OFI-TUNER-2 facts, %d region tuner releases", len(rows), len(ofiRegionReleases))
	}
	for i := range min(len(rows), len(ofiRegionReleases)) {
		if rows[i] != ofiRegionReleases[i].since {
			t.Errorf("P-OFI-TUNER-2 fact %d from %s, region tuner release from %s", i, rows[i], ofiRegionReleases[i].since)
		}
	}
	for _, f := range OFIPluginFacts() {
		if f.Repo != "aws/aws-ofi-nccl" || f.Ref.Tag == "" || f.Ref.File == "" || f.Ref.Func == "" || f.Doc == "" {
			t.Errorf("%s %s: incomplete: %+v", f.ID, f.Releases(), f)
		}
		if f.Until != (ofiVersion{}) && !f.Since.less(f.Until) {
			t.Errorf("%s: since %s not before until %s", f.ID, f.Since, f.Until)
		}
	}
}
