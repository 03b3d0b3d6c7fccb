package spec

import (
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
)

// TestConfigLines (G-ENV-CONFIG-1): parseCommConfig's "Comm config
// <label> set to" lines for the fields a config sets (every release),
// and envConfigOverride's "reset" lines from 2.28.7: without a config
// only for fields whose default is a value; with the names the lines
// print (NCCL_MAX_CGA_CLUSTER_SIZE, NCCL_MAX_P2P_PEERS), not the
// variables NCCL reads.
func TestConfigLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Version
		cfg  string
		env  Env
		want []string
	}{
		{"no config, nothing set", V2_28_9, "", nil, nil},
		{"NCCL_MIN_CTAS without a config resets the default", V2_28_9, "", Env{"NCCL_MIN_CTAS": "4"},
			[]string{"Comm config minCTAs reset to NCCL_MIN_CTAS=4"}},
		{"no reset line before 2.28.7", V2_28_3, "", Env{"NCCL_MIN_CTAS": "4"}, nil},
		{"NCCL_MIN_CTAS=0 is too low: no reset", V2_28_9, "", Env{"NCCL_MIN_CTAS": "0"},
			[]string{"NCCL_MIN_CTAS 0 is too low, leaving it set at 1"}},
		{"too low leaves the config's value", V2_25_1, "maxCTAs=8", Env{"NCCL_MAX_CTAS": "-1"},
			[]string{"Comm config Max CTAs set to 8", "NCCL_MAX_CTAS -1 is too low, leaving it set at 8"}},
		{"no too-low line before 2.25.1: the value stands, minCTAs is set to it", V2_24_3, "", Env{"NCCL_MAX_CTAS": "0"},
			[]string{"minCTAs 1 is larger than maxCTAs 0, set both to 0"}},
		{"capped at MAXCHANNELS", V2_22_3, "", Env{"NCCL_MIN_CTAS": "40", "NCCL_MAX_CTAS": "20"},
			[]string{"minCTAs 40 is larger than #channels upper limit 32, cap it to 32", "minCTAs 32 is larger than maxCTAs 20, set both to 20"}},
		{"maxCTAs capped at 2.28.9's 64", V2_28_9, "", Env{"NCCL_MAX_CTAS": "100"},
			[]string{"Comm config maxCTAs reset to NCCL_MAX_CTAS=100", "maxCTAs 100 is larger than #channels upper limit 64, cap it to 64"}},
		{"splitShare not 0/1", V2_18_1, "", Env{"NCCL_COMM_SPLIT_SHARE_RESOURCES": "2"},
			[]string{"splitShare 2 is not a valid value 0/1, set it to 0"}},
		{"nvlsCTAs <= 0 from 2.27.3", V2_27_3, "", Env{"NCCL_NVLS_NCHANNELS": "0"},
			[]string{"nvlsCTAs 0 is not a valid value, NCCL will decide the default value automatically"}},
		{"no nvlsCTAs field at 2.26.6", V2_26_6, "", Env{"NCCL_NVLS_NCHANNELS": "0"}, nil},
		{"NCCL_NCHANNELS_PER_NET_PEER too low, unset field", V2_28_3, "", Env{"NCCL_NCHANNELS_PER_NET_PEER": "0"},
			[]string{"NCCL_NCHANNELS_PER_NET_PEER 0 is too low, leaving it set at -2147483648"}},
		{"not valid, leaving nvlinkCentricSched at its default", V2_28_3, "", Env{"NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE": "2"},
			[]string{"NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE 2 is not valid, leaving it set at 0"}},
		{"graphUsageMode's default 2", V2_29_2, "", Env{"NCCL_GRAPH_MIXING_SUPPORT": "5"},
			[]string{"NCCL_GRAPH_MIXING_SUPPORT 5 is not valid, leaving it set at 2"}},
		{"NCCL_NUM_RMA_CTX=0 too low at 2.29.2", V2_29_2, "", Env{"NCCL_NUM_RMA_CTX": "0"},
			[]string{"NCCL_NUM_RMA_CTX 0 is too low, leaving it set at 1"}},
		{"NCCL_NUM_RMA_CTX=0 disables RMA at 2.30.7", V2_30_7, "", Env{"NCCL_NUM_RMA_CTX": "0"},
			[]string{"NCCL_NUM_RMA_CTX=0, RMA disabled for this communicator"}},
		{"NCCL_P2P_MAX_PEERS too low, named NCCL_MAX_P2P_PEERS", V2_30_3, "", Env{"NCCL_P2P_MAX_PEERS": "0"},
			[]string{"NCCL_MAX_P2P_PEERS 0 is too low, leaving it set at -2147483648"}},
		{"graphStreamOrdering not valid at 2.30.7", V2_30_7, "", Env{"NCCL_GRAPH_STREAM_ORDERING": "3"},
			[]string{"NCCL_GRAPH_STREAM_ORDERING 3 is not valid, leaving it set at -2147483648"}},
		{"nvlsCTAs has no default: no line without a config", V2_28_9, "", Env{"NCCL_NVLS_NCHANNELS": "8"}, nil},
		{"nvlsCTAs set and overridden", V2_28_9, "nvlsCTAs=4", Env{"NCCL_NVLS_NCHANNELS": "8"},
			[]string{"Comm config nvlsCTAs set to 4", "Comm config nvlsCTAs reset to NCCL_NVLS_NCHANNELS=8"}},
		{"config set lines at 2.18.1", V2_18_1, "maxCTAs=4,netName=IB", nil,
			[]string{"Comm config Max CTAs set to 4", "Comm config Net name set to IB"}},
		{"netName reset names the config's own value", V2_28_9, "netName=Socket", nil,
			[]string{"Comm config Net name set to Socket", "Comm config netName reset to NCCL_NET=Socket"}},
		{"NCCL_NET over netName", V2_30_7, "netName=Socket", Env{"NCCL_NET": "IB"},
			[]string{"Comm config Net name set to Socket", "Comm config netName reset to NCCL_NET=IB"}},
		{"NCCL_NET without netName: no line", V2_30_7, "", Env{"NCCL_NET": "IB"}, nil},
		{"cgaClusterSize prints NCCL_MAX_CGA_CLUSTER_SIZE", V2_28_9, "", Env{"NCCL_CGA_CLUSTER_SIZE": "2"},
			[]string{"Comm config cgaClusterSize reset to NCCL_MAX_CGA_CLUSTER_SIZE=2"}},
		{"cgaClusterSize too big: no reset", V2_28_9, "", Env{"NCCL_CGA_CLUSTER_SIZE": "9"},
			[]string{"NCCL_CGA_CLUSTER_SIZE value 9 is too big. Limiting value to 8."}},
		{"cgaClusterSize too big at 2.18.1 (a WARN there)", V2_18_1, "", Env{"NCCL_CGA_CLUSTER_SIZE": "12"},
			[]string{"NCCL_CGA_CLUSTER_SIZE value 12 is too big. Limiting value to 8."}},
		{"maxP2pPeers prints NCCL_MAX_P2P_PEERS", V2_30_3, "maxP2pPeers=16", Env{"NCCL_P2P_MAX_PEERS": "64"},
			[]string{"Comm config maxP2pPeers set to 16", "Comm config maxP2pPeers reset to NCCL_MAX_P2P_PEERS=64"}},
		{"graphUsageMode from NCCL_GRAPH_MIXING_SUPPORT", V2_29_2, "", Env{"NCCL_GRAPH_MIXING_SUPPORT": "0"},
			[]string{"Comm config graphUsageMode reset to 0 by NCCL_GRAPH_MIXING_SUPPORT=0"}},
		{"no graphUsageMode before 2.29.2", V2_28_9, "", Env{"NCCL_GRAPH_MIXING_SUPPORT": "0"}, nil},
		{"CTA policy names OR-ed from 2.29.2", V2_29_2, "", Env{"NCCL_CTA_POLICY": "ZERO|EFFICIENCY"},
			[]string{"Parsed environment variable NCCL_CTA_POLICY=ZERO|EFFICIENCY to 3", "Comm config CTAPolicy reset to NCCL_CTA_POLICY=3",
				"Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (3). Unsetting POLICY_EFFICIENCY."}},
		{"a config policy of both bits from 2.29.2", V2_29_2, "CTAPolicy=3", nil,
			[]string{"Comm config CTA policy flags set to 3",
				"Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (3). Unsetting POLICY_EFFICIENCY."}},
		{"unknown CTA policy names", V2_30_7, "", Env{"NCCL_CTA_POLICY": "zero||fast"},
			[]string{"Unknown CTA policy fast passed as environment variable. Ignoring.", "Parsed environment variable NCCL_CTA_POLICY=zero||fast to 2",
				"Comm config CTAPolicy reset to NCCL_CTA_POLICY=2"}},
		{"no known CTA policy name", V2_29_2, "", Env{"NCCL_CTA_POLICY": "fast"},
			[]string{"Unknown CTA policy fast passed as environment variable. Ignoring.", "No valid CTA policies found in NCCL_CTA_POLICY=fast."}},
		{"a legacy CTA policy digit past ZERO from 2.29.2", V2_29_2, "", Env{"NCCL_CTA_POLICY": "7"},
			[]string{ctaPolicyLegacyUnknown}},
		{"an integer CTA policy past EFFICIENCY at 2.27.3", V2_27_3, "", Env{"NCCL_CTA_POLICY": "2"},
			[]string{"CTAPolicy 2 is not a valid value, set it to 0"}},
		{"an integer CTA policy past ZERO at 2.28.9", V2_28_9, "", Env{"NCCL_CTA_POLICY": "-1"},
			[]string{"Comm config CTAPolicy reset to NCCL_CTA_POLICY=-1", "CTAPolicy -1 is not a valid value, set it to 0"}},
		{"ZERO is a policy at 2.28.3", V2_28_3, "", Env{"NCCL_CTA_POLICY": "2"}, nil},
		{"NCCL_CHECK_MODE from 2.29.7", V2_29_7, "", Env{"NCCL_CHECK_MODE": "debug_global"},
			[]string{"NCCL_CHECK_MODE set by environment to debug_global"}},
		{"no NCCL_CHECK_MODE line before 2.29.7", V2_29_3, "", Env{"NCCL_CHECK_MODE": "DEBUG_LOCAL"}, nil},
		{"collnetEnable and the split share in envConfigOverride's order", V2_28_9, "",
			Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_COMM_SPLIT_SHARE_RESOURCES": "1", "NCCL_MAX_CTAS": "16"},
			[]string{"Comm config maxCTAs reset to NCCL_MAX_CTAS=16", "Comm config splitShare reset to NCCL_COMM_SPLIT_SHARE_RESOURCES=1",
				"Comm config collnetEnable reset to NCCL_COLLNET_ENABLE=1"}},
		{"a kept config field prints no reset", V2_28_9, "maxCTAs=4", nil, []string{"Comm config Max CTAs set to 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := initConfig(t, tc.v, "dgx-h100", 1, false, tc.cfg, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := c.Trace.Find("G-ENV-CONFIG-1")
			if !ok {
				t.Fatal("no G-ENV-CONFIG-1 verdict")
			}
			if !slices.Equal(v.Log, tc.want) {
				t.Errorf("lines %q\nwant  %q", v.Log, tc.want)
			}
		})
	}
	if v, ok := ConfigResetVariable("maxP2pPeers"); !ok || v != "NCCL_P2P_MAX_PEERS" {
		t.Errorf("ConfigResetVariable(maxP2pPeers) = %q %v", v, ok)
	}
	if _, ok := ConfigResetVariable("blocking"); ok {
		t.Error("blocking has no reset line")
	}
}

// configEnvNotHere are envConfigOverride's texts another rule predicts or
// gatesim does not model, each with the reason.
var configEnvNotHere = map[string]string{
	"NCCL_COLLNET_ENABLE set by environment to %d.":          "G-COLLNET-ENV-1's line",
	"collnetEnable %d is not a valid value 0/1, set it to 0": "G-COLLNET-ENV-1's line",
	"netName buffer Size %d pointer %p":                      "ALLOC subsystem, a pointer",
}

// configEnvFormats are the texts configEnvLines can print at rs, read
// off configLines with the model's own predicates.
func configEnvFormats(rs *Ruleset) []string {
	var out []string
	for _, l := range configLines {
		if !slices.Contains(rs.Consts.ConfigFields, l.field) {
			continue
		}
		f, _ := fieldOf(l.field)
		if l.ignored != nil && slices.ContainsFunc([]int{-1, 0, 2}, func(v int) bool { return l.ignored(rs, v) }) {
			name := l.printed
			if name == "" {
				name = f.env
			}
			out = append(out, strings.Replace(l.ignoredLine, "%s", name, 1))
		}
		switch {
		case l.field == "cgaClusterSize":
			out = append(out, "NCCL_CGA_CLUSTER_SIZE value %d is too big. Limiting value to %d.")
		case l.field == "numRmaCtx" && !l.ignored(rs, 0):
			out = append(out, "NCCL_NUM_RMA_CTX=0, RMA disabled for this communicator")
		}
		if !rs.Consts.ConfigResetLog || l.printed == "" {
			continue
		}
		switch l.field {
		case "netName":
			out = append(out, "Comm config netName reset to NCCL_NET=%s")
		case "graphUsageMode":
			out = append(out, "Comm config graphUsageMode reset to %d by NCCL_GRAPH_MIXING_SUPPORT=%d")
		default:
			out = append(out, "Comm config "+l.field+" reset to "+l.printed+"=%d")
		}
	}
	out = append(out, "minCTAs %d is larger than #channels upper limit %d, cap it to %d",
		"maxCTAs %d is larger than #channels upper limit %d, cap it to %d",
		"minCTAs %d is larger than maxCTAs %d, set both to %d",
		"splitShare %d is not a valid value 0/1, set it to 0")
	if slices.Contains(rs.Consts.ConfigFields, "nvlsCTAs") {
		out = append(out, "nvlsCTAs %d is not a valid value, NCCL will decide the default value automatically")
	}
	if slices.Contains(rs.Consts.ConfigFields, "CTAPolicy") {
		// from 2.29.2 the text stays in the source, unreachable: every
		// mask getEnvCtaPolicyOnce gives is valid and parseCommConfig
		// refuses an invalid config value first
		out = append(out, "CTAPolicy %d is not a valid value, set it to %d")
		if rs.Tuning.CTAPolicyMask {
			out = append(out, "Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (%d). Unsetting POLICY_EFFICIENCY.")
		}
	}
	if rs.Consts.ConfigCheckModeLine {
		out = append(out, "NCCL_CHECK_MODE set by environment to %s")
	}
	slices.Sort(out)
	return out
}

// TestConfigEnvLinesAtTags reads every INFO and WARN text of
// envConfigOverride at each tag (NCCL's git mirror; skipped without it):
// what G-ENV-CONFIG-1 can print at the release is exactly those, less the
// texts configEnvNotHere names; and NCCL_CONFIG_DEFAULT's values are the
// defaults the "leaving it set at" lines print.
func TestConfigEnvLinesAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	call := regexp.MustCompile(`\b(INFO|WARN|INFO_LOC)\(`)
	lit := regexp.MustCompile(`^\s*"((?:[^"\\]|\\.)*)"`)
	def := regexp.MustCompile(`NCCL_CONFIG_DEFAULT\(internalConfigPtr, (\w+), NCCL_CONFIG_UNDEF_INT, (\w+),`)
	for _, v := range Releases {
		out, err := exec.Command("git", "-C", repo, "show", v.Tag()+":src/init.cc").Output()
		if err != nil {
			t.Fatal(err)
		}
		src := string(out)
		i := strings.Index(src, "\nstatic ncclResult_t envConfigOverride(")
		if i < 0 {
			t.Fatalf("%s: no envConfigOverride", v)
		}
		body := src[i : i+strings.Index(src[i:], "\n}\n")]
		var got []string
		for _, m := range call.FindAllStringIndex(body, -1) {
			rest := body[m[1]:]
			if q := strings.IndexByte(rest, '"'); q >= 0 {
				rest = rest[q:]
			}
			text := ""
			for {
				lm := lit.FindStringSubmatch(rest)
				if lm == nil {
					break
				}
				text += lm[1]
				rest = rest[len(lm[0]):]
			}
			text = strings.TrimSuffix(text, `\n`)
			if _, skip := configEnvNotHere[text]; !skip && !slices.Contains(got, text) {
				got = append(got, text)
			}
		}
		slices.Sort(got)
		rs := MustLoad(v)
		if want := configEnvFormats(rs); !slices.Equal(got, want) {
			t.Errorf("%s: envConfigOverride prints\n  %q\nthe model\n  %q", v, got, want)
		}
		for _, m := range def.FindAllStringSubmatch(src, -1) {
			i := slices.IndexFunc(configLines, func(l configLine) bool { return l.field == m[1] })
			if i < 0 || !slices.Contains(rs.Consts.ConfigFields, m[1]) {
				continue
			}
			want := fieldValue(rs, &Config{}, configLines[i])
			n, err := strconv.Atoi(m[2])
			switch {
			case m[2] == "MAXCHANNELS":
				n = rs.Consts.MaxChannels
			case m[2] == "NCCL_CTA_POLICY_DEFAULT":
				n = 0
			case m[2] == "NCCL_CONFIG_UNDEF_INT":
				n = UndefInt
			case err != nil:
				t.Errorf("%s: %s's default %s", v, m[1], m[2])
				continue
			}
			if n != want {
				t.Errorf("%s: NCCL_CONFIG_DEFAULT gives %s %d, the model %d", v, m[1], n, want)
			}
		}
	}
}
