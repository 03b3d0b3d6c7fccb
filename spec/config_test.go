package spec

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// initConfig builds a preset communicator with a communicator config.
func initConfig(t *testing.T, v Version, preset string, nodes int, sharp bool, cfg string, env Env) (*Comm, error) {
	t.Helper()
	sys, err := Preset(preset, PresetOptions{Nodes: nodes, SHARP: sharp})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sys.CommConfig = c
	if env == nil {
		env = Env{}
	}
	return Init(MustLoad(v), sys, env)
}

// TestConfigDecides: each config field the gates read changes the
// communicator as the same value of its variable does, the variable wins
// over the field as envConfigOverride lets it at that release, and a
// field the release's nccl.h lacks is refused naming the release.
// Ref: v2.30.7-1 src/init.cc parseCommConfig, envConfigOverride; src/nccl.h.in ncclConfig_t
func TestConfigDecides(t *testing.T) {
	nChannels := func(c *Comm) int { return c.NChannels }
	perPeer := func(c *Comm) int { return c.Topo.P2PNChannelsPerPeer }
	nvls := func(c *Comm) int { return c.NVLSChannels }
	b := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	collnet := func(c *Comm) int { return b(c.CollNetSupport) }
	zero := func(c *Comm) int { return b(c.Model.In.CTAPolicyZero) + 2*b(c.Model.In.CTAPolicyEfficiency) }
	socket := func(c *Comm) int { return b(c.Net == "Socket") }
	cases := []struct {
		name   string
		v      Version
		preset string
		nodes  int
		sharp  bool
		cfg    string
		env    Env
		got    func(*Comm) int
		want   int
		err    string // Init's input error
		ncclEr string // Comm.Err's message
	}{
		{name: "no config: 24 channels", v: V2_28_9, preset: "dgx-h100", nodes: 1, got: nChannels, want: 24},
		{name: "maxCTAs=4 limits channels", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "maxCTAs=4", got: nChannels, want: 4},
		{name: "maxCTAs=4 at 2.18.1", v: V2_18_1, preset: "dgx-h100", nodes: 1, cfg: "maxCTAs=4", got: nChannels, want: 4},
		{name: "NCCL_MAX_CTAS wins over maxCTAs", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "maxCTAs=4", env: Env{"NCCL_MAX_CTAS": "8"}, got: nChannels, want: 8},
		{name: "NCCL_MAX_CTAS=0 too low from 2.25.1: config kept", v: V2_25_1, preset: "dgx-h100", nodes: 1, cfg: "maxCTAs=4", env: Env{"NCCL_MAX_CTAS": "0"}, got: nChannels, want: 4},
		{name: "NCCL_MAX_CTAS=0 overrides before 2.25.1", v: V2_24_3, preset: "dgx-h100", nodes: 1, cfg: "maxCTAs=4", env: Env{"NCCL_MAX_CTAS": "0"}, got: nChannels, want: 24},
		{name: "minCTAs=8,maxCTAs=8", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "minCTAs=8,maxCTAs=8", got: nChannels, want: 8},
		{name: "minCTAs alone is refused (maxCTAs INT_MIN)", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "minCTAs=2", ncclEr: "Invalid config min/max channels attribute value 2/-2147483648"},
		{name: "maxCTAs=0 refused", v: V2_22_3, preset: "dgx-h100", nodes: 1, cfg: "maxCTAs=0", ncclEr: "Invalid config min/max channels attribute value -2147483648/0"},

		{name: "maxP2pPeers unset: 2 per peer", v: V2_30_3, preset: "dgx-h100", nodes: 8, got: perPeer, want: 2},
		{name: "maxP2pPeers=16: 4 per peer", v: V2_30_3, preset: "dgx-h100", nodes: 8, cfg: "maxP2pPeers=16", got: perPeer, want: 4},
		{name: "NCCL_P2P_MAX_PEERS wins over maxP2pPeers", v: V2_30_7, preset: "dgx-h100", nodes: 8, cfg: "maxP2pPeers=16", env: Env{"NCCL_P2P_MAX_PEERS": "64"}, got: perPeer, want: 2},
		{name: "NCCL_P2P_MAX_PEERS=0 too low: config kept", v: V2_30_7, preset: "dgx-h100", nodes: 8, cfg: "maxP2pPeers=16", env: Env{"NCCL_P2P_MAX_PEERS": "0"}, got: perPeer, want: 4},
		{name: "maxP2pPeers before 2.30.3", v: V2_29_7, preset: "dgx-h100", nodes: 8, cfg: "maxP2pPeers=16", err: "config field maxP2pPeers: NCCL 2.29.7's ncclConfig_t has no such field (it appears in 2.30.3)"},
		{name: "maxP2pPeers=0 refused", v: V2_30_3, preset: "dgx-h100", nodes: 8, cfg: "maxP2pPeers=0", ncclEr: "Invalid config maxP2pPeers attribute value 0"},

		{name: "nChannelsPerNetPeer=8", v: V2_30_3, preset: "dgx-h100", nodes: 8, cfg: "nChannelsPerNetPeer=8,maxP2pPeers=64", got: perPeer, want: 8},
		{name: "nChannelsPerNetPeer before 2.28.3", v: V2_27_7, preset: "dgx-h100", nodes: 8, cfg: "nChannelsPerNetPeer=8", err: "(it appears in 2.28.3)"},
		{name: "nChannelsPerNetPeer above MAXCHANNELS", v: V2_28_9, preset: "dgx-h100", nodes: 8, cfg: "nChannelsPerNetPeer=65", ncclEr: "Invalid config nChannelsPerNetPeer attribute value 65"},

		{name: "no config: 16 NVLS channels", v: V2_28_9, preset: "dgx-h100", nodes: 1, got: nvls, want: 16},
		{name: "nvlsCTAs=8", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "nvlsCTAs=8", got: nvls, want: 8},
		{name: "NCCL_NVLS_NCHANNELS wins over nvlsCTAs", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "nvlsCTAs=8", env: Env{"NCCL_NVLS_NCHANNELS": "4"}, got: nvls, want: 4},
		{name: "nvlsCTAs before 2.27.3", v: V2_26_6, preset: "dgx-h100", nodes: 1, cfg: "nvlsCTAs=8", err: "(it appears in 2.27.3)"},

		{name: "CTAPolicy=2 is ZERO at 2.28.9", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=2", got: zero, want: 1},
		{name: "CTAPolicy=1 is EFFICIENCY at 2.27.3", v: V2_27_3, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=1", got: zero, want: 2},
		{name: "CTAPolicy=2 refused at 2.27.7", v: V2_27_7, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=2", ncclEr: "Invalid config policy attribute value 2"},
		{name: "CTAPolicy=3 keeps ZERO at 2.29.2", v: V2_29_2, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=3", got: zero, want: 1},
		{name: "NCCL_CTA_POLICY wins over CTAPolicy", v: V2_29_2, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=2", env: Env{"NCCL_CTA_POLICY": "EFFICIENCY"}, got: zero, want: 2},
		{name: "NCCL_CTA_POLICY=3 sets no policy from 2.29.2: config kept", v: V2_30_7, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=2", env: Env{"NCCL_CTA_POLICY": "3"}, got: zero, want: 1},
		{name: "NCCL_CTA_POLICY=bogus sets no policy: config kept", v: V2_30_7, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=1", env: Env{"NCCL_CTA_POLICY": "bogus"}, got: zero, want: 2},
		{name: "NCCL_CTA_POLICY=3 overrides before 2.29.2 (then DEFAULT)", v: V2_28_9, preset: "dgx-h100", nodes: 1, cfg: "CTAPolicy=2", env: Env{"NCCL_CTA_POLICY": "3"}, got: zero, want: 0},

		{name: "no config: CollNet off", v: V2_28_9, preset: "dgx-h100", nodes: 2, sharp: true, got: collnet, want: 0},
		{name: "collnetEnable=1", v: V2_28_9, preset: "dgx-h100", nodes: 2, sharp: true, cfg: "collnetEnable=1", got: collnet, want: 1},
		{name: "NCCL_COLLNET_ENABLE=0 wins over collnetEnable", v: V2_28_9, preset: "dgx-h100", nodes: 2, sharp: true, cfg: "collnetEnable=1", env: Env{"NCCL_COLLNET_ENABLE": "0"}, got: collnet, want: 0},
		{name: "collnetEnable=2 refused", v: V2_28_9, preset: "dgx-h100", nodes: 2, sharp: true, cfg: "collnetEnable=2", ncclEr: "Invalid config collnetEnable attribute value 2"},

		{name: "no config: IB", v: V2_28_9, preset: "dgx-h100", nodes: 2, got: socket, want: 0},
		{name: "netName=Socket", v: V2_28_9, preset: "dgx-h100", nodes: 2, cfg: "netName=Socket", got: socket, want: 1},
		{name: "NCCL_NET wins over netName", v: V2_18_1, preset: "dgx-h100", nodes: 2, cfg: "netName=Socket", env: Env{"NCCL_NET": "IB"}, got: socket, want: 0},

		{name: "blocking=2 refused", v: V2_22_3, preset: "dgx-h100", nodes: 1, cfg: "blocking=2", ncclEr: "Invalid config blocking attribute value 2"},
		{name: "graphUsageMode=3 refused", v: V2_29_2, preset: "dgx-h100", nodes: 1, cfg: "graphUsageMode=3", ncclEr: "Invalig config graphUsageMode attribute value 3"},
		{name: "graphStreamOrdering before 2.30.7", v: V2_30_4, preset: "dgx-h100", nodes: 1, cfg: "graphStreamOrdering=1", err: "(it appears in 2.30.7)"},
		{name: "trafficClass before 2.26.2", v: V2_25_1, preset: "dgx-h100", nodes: 1, cfg: "trafficClass=3", err: "NCCL 2.25.1's ncclConfig_t has no such field (it appears in 2.26.2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := initConfig(t, tc.v, tc.preset, tc.nodes, tc.sharp, tc.cfg, tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.ncclEr != "" {
				if c.Err == nil || c.Err.Result != InvalidArgument || c.Err.Message != tc.ncclEr {
					t.Fatalf("Comm.Err %v, want ncclInvalidArgument %q", c.Err, tc.ncclEr)
				}
				return
			}
			if c.Err != nil {
				t.Fatal(c.Err)
			}
			if got := tc.got(c); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

// TestConfigParse: the CLI text and the JSON object read the same
// fields; an unknown field, a wrong type or a repeated field is refused.
func TestConfigParse(t *testing.T) {
	c, err := ParseConfig("maxP2pPeers=4, netName=IB,CTAPolicy=0x2")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String(); got != "netName=IB,CTAPolicy=2,maxP2pPeers=4" {
		t.Errorf("String %q", got)
	}
	var j Config
	if err := json.Unmarshal([]byte(`{"maxP2pPeers":4,"netName":"IB","CTAPolicy":2}`), &j); err != nil {
		t.Fatal(err)
	}
	if j.String() != c.String() {
		t.Errorf("JSON %q, text %q", j.String(), c.String())
	}
	out, err := json.Marshal(j)
	if err != nil || string(out) != `{"CTAPolicy":2,"maxP2pPeers":4,"netName":"IB"}` {
		t.Errorf("MarshalJSON %s %v", out, err)
	}
	for _, bad := range []struct{ text, want string }{
		{"maxPeers=4", `unknown ncclConfig_t field "maxPeers": expected one of blocking, cgaClusterSize`},
		{"maxCTAs=four", `config field maxCTAs="four": expected an integer`},
		{"maxCTAs=4,maxCTAs=5", "given twice"},
		{"maxCTAs", "expected name=value"},
		{"maxCTAs=4294967296", "expected an integer (a C int)"},
		{"maxCTAs=-2147483648", "NCCL_CONFIG_UNDEF_INT"},
		{"netName=" + strings.Repeat("x", ConfigNameMax+1), "at most 256 bytes"},
	} {
		if _, err := ParseConfig(bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseConfig(%.30q): %v, want %q", bad.text, err, bad.want)
		}
	}
	for _, bad := range []struct{ json, want string }{
		{`{"maxPeers":4}`, `unknown ncclConfig_t field "maxPeers"`},
		{`{"maxCTAs":"4"}`, "config field maxCTAs: expected an integer"},
		{`{"maxCTAs":4.5}`, "config field maxCTAs: expected an integer"},
		{`{"netName":4}`, "config field netName: expected a string"},
		{`{"maxCTAs":2147483648}`, "expected a C int"},
		{`[1]`, "expected an object of ncclConfig_t fields"},
	} {
		var c Config
		if err := json.Unmarshal([]byte(bad.json), &c); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Unmarshal(%s): %v, want %q", bad.json, err, bad.want)
		}
	}
}

// FuzzParseConfig: any text is read or refused with an error, never a
// panic, and what is read prints back to itself.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"maxP2pPeers=4", "netName=IB,maxCTAs=8", "CTAPolicy=0x3", "", "a=b=c", ",", "minCTAs=1,maxCTAs=2", "netName=", "maxCTAs= 4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(s)
		if err != nil {
			return
		}
		back, err := ParseConfig(c.String())
		if err != nil || back.String() != c.String() {
			t.Fatalf("%q read as %q, which reads back as %v, %v", s, c.String(), back, err)
		}
	})
}

// TestConfigAsVariable: a config field the gates read, with its variable
// unset, builds the communicator its variable would (comm->config is one
// value whichever way it was set).
func TestConfigAsVariable(t *testing.T) {
	for _, tc := range []struct {
		v          Version
		nodes      int
		cfg, name  string
		value      string
		sharp      bool
		extraField string // set in both (maxCTAs for minCTAs)
	}{
		{V2_28_9, 1, "maxCTAs=6", "NCCL_MAX_CTAS", "6", false, ""},
		{V2_28_9, 1, "minCTAs=30,maxCTAs=30", "NCCL_MIN_CTAS", "30", false, "NCCL_MAX_CTAS=30"},
		{V2_28_9, 1, "nvlsCTAs=4", "NCCL_NVLS_NCHANNELS", "4", false, ""},
		{V2_30_7, 8, "maxP2pPeers=16", "NCCL_P2P_MAX_PEERS", "16", false, ""},
		{V2_30_7, 8, "nChannelsPerNetPeer=8", "NCCL_NCHANNELS_PER_NET_PEER", "8", false, ""},
		{V2_28_9, 2, "collnetEnable=1", "NCCL_COLLNET_ENABLE", "1", true, ""},
		{V2_28_9, 2, "netName=Socket", "NCCL_NET", "Socket", false, ""},
		{V2_28_9, 1, "CTAPolicy=2", "NCCL_CTA_POLICY", "2", false, ""},
		{V2_30_7, 1, "CTAPolicy=1", "NCCL_CTA_POLICY", "EFFICIENCY", false, ""},
	} {
		t.Run(tc.v.String()+" "+tc.cfg, func(t *testing.T) {
			fromCfg, err := initConfig(t, tc.v, "dgx-h100", tc.nodes, tc.sharp, tc.cfg, nil)
			if err != nil || fromCfg.Err != nil {
				t.Fatal(err, fromCfg.Err)
			}
			env := Env{tc.name: tc.value}
			if tc.extraField != "" {
				k, v, _ := strings.Cut(tc.extraField, "=")
				env[k] = v
			}
			fromEnv, err := initConfig(t, tc.v, "dgx-h100", tc.nodes, tc.sharp, "", env)
			if err != nil || fromEnv.Err != nil {
				t.Fatal(err, fromEnv.Err)
			}
			shape := func(c *Comm) string {
				in := c.Model.In
				return strings.Join([]string{c.Net, c.Topo.Summary, strings.TrimSpace(strings.Repeat("collnet ", b2i(c.CollNetSupport))),
					strings.Repeat("zero ", b2i(in.CTAPolicyZero)) + strings.Repeat("eff ", b2i(in.CTAPolicyEfficiency)),
					itoa(c.NChannels), itoa(c.NVLSChannels), itoa(c.Topo.P2PNChannelsPerPeer), itoa(in.MinCTAs), itoa(in.MaxCTAs)}, "|")
			}
			if a, b := shape(fromCfg), shape(fromEnv); a != b {
				t.Errorf("config %s: %s\nvariable %s=%s: %s", tc.cfg, a, tc.name, tc.value, b)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }
