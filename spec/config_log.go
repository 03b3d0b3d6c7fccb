package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
// A set variable whose value envConfigOverride refuses prints instead
// "<VAR> %d is too low, leaving it set at %d" (NCCL_MIN_CTAS and
// NCCL_MAX_CTAS <= 0 from 2.25.1, NCCL_NCHANNELS_PER_NET_PEER and
// NCCL_P2P_MAX_PEERS <= 0, NCCL_NUM_RMA_CTX below Consts.ConfigRmaCtxEnvMin)
// or "<VAR> %d is not valid, leaving it set at %d" (the 0/1 fields), with
// the field's value after parseCommConfig; NCCL_CGA_CLUSTER_SIZE above 8 is
// "too big" (every release; a WARN up to 2.24.3). Each arrives with its
// field's release (Consts.ConfigFields). Then every release checks the
// result: minCTAs and maxCTAs capped at MAXCHANNELS, minCTAs at maxCTAs,
// splitShare 0/1, an integer CTAPolicy past the release's last policy
// (2.27.3-2.28.x), nvlsCTAs > 0, a policy mask with both ZERO and
// EFFICIENCY (a WARN, 2.29.2+), and from 2.29.7 "NCCL_CHECK_MODE set by
// environment to %s" for any value set (configCheckLines); from 2.29.2
// getEnvCtaPolicyOnce's lines come at the policy's override
// (ctaPolicyEnvLines). TestConfigEnvLinesAtTags
// holds these texts to every tag's envConfigOverride.
//
// Ref: v2.30.7-1 src/init.cc parseCommConfig (NCCL_CONFIG_DEFAULT),
// envConfigOverride; v2.28.7-1 src/init.cc envConfigOverride (the first
// "reset" lines); v2.18.1-1, v2.25.1-1 src/init.cc envConfigOverride.

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
	// def is NCCL_CONFIG_DEFAULT's value of a defined field (maxCTAs:
	// MAXCHANNELS, set by fieldValue).
	def int
	// ignored is envConfigOverride's test of a set variable's value v
	// that leaves the field as it is and prints ignoredLine instead of
	// a reset line; nil when every value is taken.
	ignored func(rs *Ruleset, v int) bool
	// ignoredLine names the variable as the line does ("too low" lines
	// name NCCL_MAX_P2P_PEERS too).
	ignoredLine string
}

// The ignored-value tests and lines of envConfigOverride.
func nonPositive(_ *Ruleset, v int) bool { return v <= 0 }
func not01(_ *Ruleset, v int) bool       { return v != 0 && v != 1 }
func rmaCtxTooLow(rs *Ruleset, v int) bool {
	return v < rs.Consts.ConfigRmaCtxEnvMin
}

const (
	lineTooLow   = "%s %d is too low, leaving it set at %d"
	lineNotValid = "%s %d is not valid, leaving it set at %d"
)

// configLines are the fields in envConfigOverride's order (the reset
// lines' order); blocking, trafficClass, commName and numRmaCtx print no
// reset line.
var configLines = []configLine{
	{field: "cgaClusterSize", label: "CGA cluster size", defined: true, printed: "NCCL_MAX_CGA_CLUSTER_SIZE", def: 4},
	{field: "minCTAs", label: "Min CTAs", defined: true, printed: "NCCL_MIN_CTAS", def: 1,
		ignored: func(rs *Ruleset, v int) bool { return rs.Consts.ConfigCTAEnvPositive && v <= 0 }, ignoredLine: lineTooLow},
	{field: "maxCTAs", label: "Max CTAs", defined: true, printed: "NCCL_MAX_CTAS",
		ignored: func(rs *Ruleset, v int) bool { return rs.Consts.ConfigCTAEnvPositive && v <= 0 }, ignoredLine: lineTooLow},
	{field: "nChannelsPerNetPeer", label: "nChannelsPerNetPeer", printed: "NCCL_NCHANNELS_PER_NET_PEER", ignored: nonPositive, ignoredLine: lineTooLow},
	{field: "nvlinkCentricSched", label: "nvlinkCentricSched", defined: true, printed: "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", ignored: not01, ignoredLine: lineNotValid},
	{field: "graphUsageMode", label: "graphUsageMode", defined: true, printed: "NCCL_GRAPH_MIXING_SUPPORT", def: 2, ignored: not01, ignoredLine: lineNotValid},
	{field: "numRmaCtx", label: "numRmaCtx", defined: true, def: 1, ignored: rmaCtxTooLow, ignoredLine: lineTooLow},
	{field: "maxP2pPeers", label: "maxP2pPeers", printed: "NCCL_MAX_P2P_PEERS", ignored: nonPositive, ignoredLine: lineTooLow},
	{field: "graphStreamOrdering", label: "graphStreamOrdering", printed: "NCCL_GRAPH_STREAM_ORDERING", ignored: not01, ignoredLine: lineNotValid},
	{field: "netName", label: "Net name", printed: "NCCL_NET"},
	{field: "splitShare", label: "Split share", defined: true, printed: "NCCL_COMM_SPLIT_SHARE_RESOURCES"},
	{field: "shrinkShare", label: "shrinkShare", defined: true, printed: "NCCL_COMM_SHRINK_SHARE_RESOURCES"},
	{field: "collnetEnable", label: "Collnet enable", defined: true, printed: "NCCL_COLLNET_ENABLE"},
	{field: "CTAPolicy", label: "CTA policy flags", defined: true, printed: "NCCL_CTA_POLICY"},
	{field: "nvlsCTAs", label: "nvlsCTAs", printed: "NCCL_NVLS_NCHANNELS"},
	{field: "blocking", label: "Blocking", defined: true, def: 1},
	{field: "trafficClass", label: "Traffic class"},
	{field: "commName", label: "Comm name"},
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

// fieldValue is the field's value after parseCommConfig: the config's,
// else NCCL_CONFIG_DEFAULT's, else NCCL_CONFIG_UNDEF_INT.
func fieldValue(rs *Ruleset, cfg *Config, l configLine) int {
	if v, ok := cfg.Int(l.field); ok {
		return v
	}
	switch {
	case l.field == "maxCTAs":
		return rs.Consts.MaxChannels
	case l.defined:
		return l.def
	}
	return UndefInt
}

// configLineOf is the field's entry of configLines.
func configLineOf(field string) configLine {
	return configLines[slices.IndexFunc(configLines, func(l configLine) bool { return l.field == field })]
}

// configEnvLines are envConfigOverride's lines for the release's fields
// in its order: a variable whose value it ignores ("is too low" / "is not
// valid, leaving it set at", NCCL_CGA_CLUSTER_SIZE "is too big"), the
// "reset" lines (none before Consts.ConfigResetLog), then its checks of
// the result (configCheckLines).
func configEnvLines(rs *Ruleset, env Env, cfg *Config) []string {
	var out []string
	for _, l := range configLines {
		if !slices.Contains(rs.Consts.ConfigFields, l.field) {
			continue
		}
		f, _ := fieldOf(l.field)
		v := UndefInt
		if f.env != "" {
			v = paramOf(env, f.env)
		}
		if l.ignored != nil && v != UndefInt && l.ignored(rs, v) {
			name := l.printed
			if name == "" {
				name = f.env
			}
			out = append(out, fmt.Sprintf(l.ignoredLine, name, v, fieldValue(rs, cfg, l)))
			continue
		}
		if l.field == "numRmaCtx" && v == 0 {
			out = append(out, "NCCL_NUM_RMA_CTX=0, RMA disabled for this communicator")
		}
		if l.field == "CTAPolicy" && rs.Tuning.CTAPolicyMask {
			if s, ok := env.Lookup(f.env); ok {
				out = append(out, ctaPolicyEnvLines(s)...)
			}
		}
		if l.field == "cgaClusterSize" && v != UndefInt && v > ncclMaxCGAClusterSize {
			out = append(out, fmt.Sprintf("NCCL_CGA_CLUSTER_SIZE value %d is too big. Limiting value to %d.", v, ncclMaxCGAClusterSize))
			continue
		}
		if !rs.Consts.ConfigResetLog || l.printed == "" {
			continue
		}
		_, isInt := cfg.Int(l.field)
		_, isStr := cfg.Str(l.field)
		if !l.defined && !isInt && !isStr {
			continue // still NCCL_CONFIG_UNDEF after parseCommConfig
		}
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
			if v != UndefInt && v >= 0 {
				out = append(out, fmt.Sprintf("Comm config cgaClusterSize reset to %s=%d", l.printed, v))
			}
			continue
		}
		if !f.envWins(rs, env, f.env) {
			continue
		}
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
	return append(out, configCheckLines(rs, env, cfg)...)
}

// configCheckLines are envConfigOverride's checks after the overrides
// (every release): minCTAs and maxCTAs capped at MAXCHANNELS and minCTAs
// at maxCTAs, a splitShare not 0/1, and (from the field's release) an
// nvlsCTAs <= 0. collnetEnable's check is G-COLLNET-ENV-1's line.
func configCheckLines(rs *Ruleset, env Env, cfg *Config) []string {
	value := func(field string) int {
		f, _ := fieldOf(field)
		if f.envWins(rs, env, f.env) {
			return paramOf(env, f.env)
		}
		return fieldValue(rs, cfg, configLineOf(field))
	}
	var out []string
	maxCh := rs.Consts.MaxChannels
	lo, hi := value("minCTAs"), value("maxCTAs")
	if lo > maxCh {
		out = append(out, fmt.Sprintf("minCTAs %d is larger than #channels upper limit %d, cap it to %d", lo, maxCh, maxCh))
		lo = maxCh
	}
	if hi > maxCh {
		out = append(out, fmt.Sprintf("maxCTAs %d is larger than #channels upper limit %d, cap it to %d", hi, maxCh, maxCh))
		hi = maxCh
	}
	if lo > hi {
		out = append(out, fmt.Sprintf("minCTAs %d is larger than maxCTAs %d, set both to %d", lo, hi, hi))
	}
	if v := value("splitShare"); v != 0 && v != 1 {
		out = append(out, fmt.Sprintf("splitShare %d is not a valid value 0/1, set it to 0", v))
	}
	hasPolicy := slices.Contains(rs.Consts.ConfigFields, "CTAPolicy")
	if hasPolicy && !rs.Tuning.CTAPolicyMask {
		// an integer NCCL_CTA_POLICY past the release's last policy; from
		// 2.29.2 getEnvCtaPolicyOnce gives only valid masks and
		// parseCommConfig refuses an invalid config value first
		if v := value("CTAPolicy"); v < 0 || v > rs.Tuning.CTAPolicyMax {
			out = append(out, fmt.Sprintf("CTAPolicy %d is not a valid value, set it to %d", v, 0))
		}
	}
	if slices.Contains(rs.Consts.ConfigFields, "nvlsCTAs") {
		if v := value("nvlsCTAs"); v != UndefInt && v <= 0 {
			out = append(out, fmt.Sprintf("nvlsCTAs %d is not a valid value, NCCL will decide the default value automatically", v))
		}
	}
	if hasPolicy && rs.Tuning.CTAPolicyMask {
		if v := ctaPolicyOf(rs, env, cfg); v&ctaPolicyZero != 0 && v&ctaPolicyEfficiency != 0 {
			out = append(out, fmt.Sprintf("Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (%d). Unsetting POLICY_EFFICIENCY.", v))
		}
	}
	// the non-config settings envConfigOverride reads last
	if s, ok := env.Lookup("NCCL_CHECK_MODE"); ok && rs.Consts.ConfigCheckModeLine {
		out = append(out, "NCCL_CHECK_MODE set by environment to "+s)
	}
	return out
}

// ctaPolicyOf is config.CTAPolicy after envConfigOverride's override
// (a policy mask, 2.29.2+): NCCL_CTA_POLICY when getEnvCtaPolicyOnce set
// one, else the config's field or DEFAULT.
func ctaPolicyOf(rs *Ruleset, env Env, cfg *Config) int {
	f, _ := fieldOf("CTAPolicy")
	if f.envWins(rs, env, f.env) {
		s, _ := env.Lookup(f.env)
		return ctaPolicyMask(s)
	}
	return fieldValue(rs, cfg, configLineOf("CTAPolicy"))
}

// ctaPolicyLegacyUnknown is getEnvCtaPolicyOnce's line for a leading
// digit other than 0, 1 or 2; the policy stays unset (the config's
// field, or DEFAULT, stands), whatever "Using DEFAULT" says.
const ctaPolicyLegacyUnknown = "Unknown CTA policy; the legacy usage of NCCL_CTA_POLICY only supports the value of 0 (DEFAULT), 1 (EFFICIENCY), or 2 (ZERO). Using DEFAULT instead."

// ctaPolicyEnvLines are getEnvCtaPolicyOnce's INFO lines for
// NCCL_CTA_POLICY=v (2.29.2+): a leading digit is the old single policy;
// otherwise each '|'-separated name it does not know (strtok skips empty
// ones), then what the names gave.
// Ref: v2.30.7-1 src/init.cc getEnvCtaPolicyOnce (v2.29.2-1 likewise)
func ctaPolicyEnvLines(v string) []string {
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		if v[0] > '2' {
			return []string{ctaPolicyLegacyUnknown}
		}
		return nil
	}
	var out []string
	known := false
	for _, tok := range strings.Split(v, "|") {
		switch strings.ToUpper(tok) {
		case "":
		case "DEFAULT", "EFFICIENCY", "ZERO":
			known = true
		default:
			out = append(out, "Unknown CTA policy "+tok+" passed as environment variable. Ignoring.")
		}
	}
	if !known {
		return append(out, "No valid CTA policies found in NCCL_CTA_POLICY="+v+".")
	}
	return append(out, fmt.Sprintf("Parsed environment variable NCCL_CTA_POLICY=%s to %d", v, ctaPolicyMask(v)))
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

// ConfigFieldOfVariable is the field whose variable a line names
// ("NCCL_MAX_P2P_PEERS" and "NCCL_P2P_MAX_PEERS" are maxP2pPeers).
func ConfigFieldOfVariable(name string) (string, bool) {
	for _, l := range configLines {
		if f, _ := fieldOf(l.field); name == l.printed || (f.env != "" && name == f.env) {
			return l.field, true
		}
	}
	return "", false
}
