package spec

import (
	"fmt"
	"slices"
	"strconv"
)

// The INFO lines (ENV subsystem) parseCommConfig and envConfigOverride
// print about ncclConfig_t, predicted from the Config and the environment
// (G-ENV-CONFIG-1).
//
// parseCommConfig fills every field the config leaves NCCL_CONFIG_UNDEF
// with its default and prints "Comm config <label> set to <value>" for
// each field the config set (NCCL_CONFIG_DEFAULT, every release). From
// 2.28.7 envConfigOverride, which runs after it, prints "Comm config
// <field> reset to <VAR>=<value>" when a variable overrides a field that
// is no longer NCCL_CONFIG_UNDEF_INT: a field whose default is a value
// (minCTAs 1, cgaClusterSize 4, ...) prints it even without a config
// (ncclCommInitRank passes NCCL_CONFIG_INITIALIZER), a field whose default
// is NCCL_CONFIG_UNDEF_INT (nvlsCTAs, nChannelsPerNetPeer, maxP2pPeers,
// graphStreamOrdering) or NULL (netName) only when the config set it.
//
// Ref: v2.30.7-1 src/init.cc parseCommConfig (NCCL_CONFIG_DEFAULT),
// envConfigOverride; v2.28.7-1 src/init.cc envConfigOverride (the first
// "reset" lines).

// configLine is one field's lines, in envConfigOverride's order.
type configLine struct {
	field string
	// label is NCCL_CONFIG_DEFAULT's fieldStr ("Min CTAs").
	label string
	// defined: NCCL_CONFIG_DEFAULT gives the field a value, so a variable
	// that overrides it prints the reset line without a config.
	defined bool
	// printed is the variable as the reset line names it, which is not
	// always the one NCCL reads (NCCL_MAX_CGA_CLUSTER_SIZE for
	// NCCL_CGA_CLUSTER_SIZE, NCCL_MAX_P2P_PEERS for NCCL_P2P_MAX_PEERS);
	// "" when the field has no reset line.
	printed string
}

// configLines are the fields in envConfigOverride's order (the reset
// lines' order); blocking, trafficClass, commName and numRmaCtx print no
// reset line.
var configLines = []configLine{
	{field: "cgaClusterSize", label: "CGA cluster size", defined: true, printed: "NCCL_MAX_CGA_CLUSTER_SIZE"},
	{field: "minCTAs", label: "Min CTAs", defined: true, printed: "NCCL_MIN_CTAS"},
	{field: "maxCTAs", label: "Max CTAs", defined: true, printed: "NCCL_MAX_CTAS"},
	{field: "nChannelsPerNetPeer", label: "nChannelsPerNetPeer", printed: "NCCL_NCHANNELS_PER_NET_PEER"},
	{field: "nvlinkCentricSched", label: "nvlinkCentricSched", defined: true, printed: "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE"},
	{field: "graphUsageMode", label: "graphUsageMode", defined: true, printed: "NCCL_GRAPH_MIXING_SUPPORT"},
	{field: "maxP2pPeers", label: "maxP2pPeers", printed: "NCCL_MAX_P2P_PEERS"},
	{field: "graphStreamOrdering", label: "graphStreamOrdering", printed: "NCCL_GRAPH_STREAM_ORDERING"},
	{field: "netName", label: "Net name", printed: "NCCL_NET"},
	{field: "splitShare", label: "Split share", defined: true, printed: "NCCL_COMM_SPLIT_SHARE_RESOURCES"},
	{field: "shrinkShare", label: "shrinkShare", defined: true, printed: "NCCL_COMM_SHRINK_SHARE_RESOURCES"},
	{field: "collnetEnable", label: "Collnet enable", defined: true, printed: "NCCL_COLLNET_ENABLE"},
	{field: "CTAPolicy", label: "CTA policy flags", defined: true, printed: "NCCL_CTA_POLICY"},
	{field: "nvlsCTAs", label: "nvlsCTAs", printed: "NCCL_NVLS_NCHANNELS"},
	{field: "blocking", label: "Blocking"},
	{field: "trafficClass", label: "Traffic class"},
	{field: "commName", label: "Comm name"},
	{field: "numRmaCtx", label: "numRmaCtx"},
}

// ncclMaxCGAClusterSize is NCCL_MAX_CGA_CLUSTER_SIZE (src/init.cc): a
// larger NCCL_CGA_CLUSTER_SIZE is "too big" and prints no reset line.
const ncclMaxCGAClusterSize = 8

// ConfigResetVariable is the variable NCCL reads for a field whose reset
// line names it ("Comm config <field> reset to ..."): what a log reader
// records from that line.
func ConfigResetVariable(field string) (string, bool) {
	f, ok := fieldOf(field)
	if !ok || f.env == "" {
		return "", false
	}
	i := slices.IndexFunc(configLines, func(l configLine) bool { return l.field == field })
	if i < 0 || configLines[i].printed == "" {
		return "", false
	}
	return f.env, true
}

// configSetLines are parseCommConfig's "Comm config <label> set to
// <value>" lines for the fields cfg sets, in the struct's order.
func configSetLines(cfg *Config) []string {
	var out []string
	for _, n := range cfg.Names() {
		i := slices.IndexFunc(configLines, func(l configLine) bool { return l.field == n })
		out = append(out, "Comm config "+configLines[i].label+" set to "+cfg.text(n))
	}
	return out
}

// configResetLines are envConfigOverride's "reset" lines for the
// release's fields (none before Consts.ConfigResetLog).
func configResetLines(rs *Ruleset, env Env, cfg *Config) []string {
	if !rs.Consts.ConfigResetLog {
		return nil
	}
	var out []string
	for _, l := range configLines {
		if l.printed == "" || !slices.Contains(rs.Consts.ConfigFields, l.field) {
			continue
		}
		_, isInt := cfg.Int(l.field)
		_, isStr := cfg.Str(l.field)
		if !l.defined && !isInt && !isStr {
			continue // still NCCL_CONFIG_UNDEF after parseCommConfig
		}
		f, _ := fieldOf(l.field)
		switch l.field {
		case "netName":
			// the config's name (set here) is copied through too, and
			// the line names it as if NCCL_NET had said so
			v, ok := env.Lookup(f.env)
			if !ok {
				v = cfg.text(l.field)
			}
			out = append(out, "Comm config netName reset to NCCL_NET="+v)
			continue
		case "cgaClusterSize":
			if v := paramOf(env, f.env); v != UndefInt && v >= 0 && v <= ncclMaxCGAClusterSize {
				out = append(out, fmt.Sprintf("Comm config cgaClusterSize reset to %s=%d", l.printed, v))
			}
			continue
		}
		if !f.envWins(rs, env, f.env) {
			continue
		}
		v := paramOf(env, f.env)
		switch l.field {
		case "collnetEnable":
			s, _ := env.Lookup(f.env)
			v = strtolInt(s)
		case "CTAPolicy":
			if rs.Tuning.CTAPolicyMask {
				s, _ := env.Lookup(f.env)
				v = ctaPolicyMask(s)
			}
		case "graphUsageMode":
			mode := 0
			if v == 1 {
				mode = 2
			}
			out = append(out, fmt.Sprintf("Comm config graphUsageMode reset to %d by %s=%d", mode, l.printed, v))
			continue
		}
		out = append(out, "Comm config "+l.field+" reset to "+l.printed+"="+strconv.Itoa(v))
	}
	return out
}

// ConfigFieldOfLabel is the field whose "Comm config <label> set to"
// line names it by label ("Max CTAs" is maxCTAs).
func ConfigFieldOfLabel(label string) (string, bool) {
	i := slices.IndexFunc(configLines, func(l configLine) bool { return l.label == label })
	if i < 0 {
		return "", false
	}
	return configLines[i].field, true
}
