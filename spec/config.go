package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Config is the ncclConfig_t a job passes to ncclCommInitRankConfig: the
// fields it sets, by NCCL's names ("maxCTAs", "netName"). A field left out
// is NCCL_CONFIG_UNDEF, as NCCL_CONFIG_INITIALIZER leaves it. The zero
// Config sets nothing (ncclCommInitRank).
type Config struct {
	ints map[string]int
	strs map[string]string
}

// configField is one ncclConfig_t field as parseCommConfig and
// envConfigOverride treat it.
type configField struct {
	name string
	str  bool // a const char* field
	// env is the variable envConfigOverride lets override the field; ""
	// when none does.
	env string
	// model: the gates read the field through env, so a config value that
	// stands writes env (the others are checked and reported only).
	model bool
	// valid is parseCommConfig's check of a set value; want says it.
	valid func(rs *Ruleset, v int) bool
	want  string
	// envWins says whether the release's envConfigOverride lets the set
	// variable (its value v as ncclGetEnv gives it) override the field.
	envWins func(rs *Ruleset, env Env, name string) bool
}

// ConfigNameMax bounds a string field (netName, commName).
const ConfigNameMax = 256

// configFields are the ncclConfig_t fields of every modelled release in
// the struct's order (src/nccl.h.in); Consts.ConfigFields says which a
// release has.
// Ref: v2.30.7-1 src/init.cc parseCommConfig, envConfigOverride
var configFields = []configField{
	{name: "blocking", env: "NCCL_COMM_BLOCKING", valid: within(0, 1), want: "0 or 1", envWins: paramIn(0, 1)},
	{name: "cgaClusterSize", env: "NCCL_CGA_CLUSTER_SIZE", valid: atLeast(0), want: ">= 0", envWins: paramIn(0, maxInt)},
	{name: "minCTAs", env: "NCCL_MIN_CTAS", model: true, valid: atLeast(1), want: "> 0", envWins: ctaEnvWins},
	{name: "maxCTAs", env: "NCCL_MAX_CTAS", model: true, valid: atLeast(1), want: "> 0", envWins: ctaEnvWins},
	{name: "netName", str: true, env: "NCCL_NET", model: true, envWins: envSet},
	{name: "splitShare", env: "NCCL_COMM_SPLIT_SHARE_RESOURCES", valid: within(0, 1), want: "0 or 1", envWins: paramSet},
	{name: "trafficClass", valid: func(*Ruleset, int) bool { return true }},
	{name: "commName", str: true},
	{name: "collnetEnable", env: "NCCL_COLLNET_ENABLE", model: true, valid: within(0, 1), want: "0 or 1", envWins: func(_ *Ruleset, env Env, name string) bool {
		v, ok := env.Lookup(name) // ncclGetEnv and (int)strtol
		return ok && strtolInt(v) != UndefInt
	}},
	{name: "CTAPolicy", env: "NCCL_CTA_POLICY", model: true, valid: func(rs *Ruleset, v int) bool { return v >= 0 && v <= ctaPolicyMaxOf(rs) },
		want: "a policy the release has", envWins: func(rs *Ruleset, env Env, name string) bool {
			if rs.Tuning.CTAPolicyMask {
				v, ok := env.Lookup(name)
				return ok && ctaPolicyEnvSet(v)
			}
			return paramSet(rs, env, name)
		}},
	{name: "shrinkShare", env: "NCCL_COMM_SHRINK_SHARE_RESOURCES", valid: within(0, 1), want: "0 or 1", envWins: paramSet},
	{name: "nvlsCTAs", env: "NCCL_NVLS_NCHANNELS", model: true, valid: atLeast(1), want: "> 0", envWins: paramSet},
	{name: "nChannelsPerNetPeer", env: "NCCL_NCHANNELS_PER_NET_PEER", model: true,
		valid: func(rs *Ruleset, v int) bool { return v > 0 && v <= rs.Consts.MaxChannels }, want: "1..MAXCHANNELS", envWins: paramIn(1, maxInt)},
	{name: "nvlinkCentricSched", env: "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", valid: within(0, 1), want: "0 or 1", envWins: paramIn(0, 1)},
	{name: "graphUsageMode", env: "NCCL_GRAPH_MIXING_SUPPORT", valid: within(0, 2), want: "0, 1 or 2", envWins: paramIn(0, 1)},
	// numRmaCtx: parseCommConfig takes what the variable may set, at least
	// 1 up to 2.30.4 and 0 from 2.30.7; comm->hostRmaSupport reads it
	// (2.30.7+), so a kept value stands for the variable
	{name: "numRmaCtx", env: "NCCL_NUM_RMA_CTX", model: true, valid: func(rs *Ruleset, v int) bool { return v >= rs.Consts.ConfigRmaCtxEnvMin }, want: "> 0 (>= 0 from 2.30.7)", envWins: func(rs *Ruleset, env Env, name string) bool {
		return paramIn(rs.Consts.ConfigRmaCtxEnvMin, maxInt)(rs, env, name)
	}},
	{name: "maxP2pPeers", env: "NCCL_P2P_MAX_PEERS", model: true, valid: atLeast(1), want: "> 0", envWins: paramIn(1, maxInt)},
	{name: "graphStreamOrdering", env: "NCCL_GRAPH_STREAM_ORDERING", valid: within(0, 1), want: "0 or 1", envWins: paramIn(0, 1)},
}

func within(lo, hi int) func(*Ruleset, int) bool {
	return func(_ *Ruleset, v int) bool { return v >= lo && v <= hi }
}

func atLeast(lo int) func(*Ruleset, int) bool {
	return func(_ *Ruleset, v int) bool { return v >= lo }
}

// paramOf is the field's NCCL_PARAM as envConfigOverride assigns it to
// an int: unset, empty or overflowing is NCCL_CONFIG_UNDEF_INT.
func paramOf(env Env, name string) int {
	v, set, _ := intParam(env, name, UndefInt)
	if !set {
		return UndefInt
	}
	return int(int32(v))
}

const maxInt = 1<<31 - 1

// paramIn: the variable overrides when its value is within lo..hi.
func paramIn(lo, hi int) func(*Ruleset, Env, string) bool {
	return func(_ *Ruleset, env Env, name string) bool {
		v := paramOf(env, name)
		return v != UndefInt && v >= lo && v <= hi
	}
}

// paramSet: any value but NCCL_CONFIG_UNDEF_INT overrides.
func paramSet(_ *Ruleset, env Env, name string) bool { return paramOf(env, name) != UndefInt }

// envSet: a variable read with ncclGetEnv overrides when set, even empty.
func envSet(_ *Ruleset, env Env, name string) bool {
	_, ok := env.Lookup(name)
	return ok
}

// ctaEnvWins: NCCL_MIN_CTAS/NCCL_MAX_CTAS override when set, and from
// 2.25.1 only when positive ("is too low, leaving it set").
func ctaEnvWins(rs *Ruleset, env Env, name string) bool {
	if rs.Consts.ConfigCTAEnvPositive {
		return paramIn(1, maxInt)(rs, env, name)
	}
	return paramSet(rs, env, name)
}

// ctaPolicyEnvSet: getEnvCtaPolicyOnce (2.29.2+) sets a policy from v: a
// leading digit 0, 1 or 2, or at least one known name among those joined
// by '|'; anything else ("3", "", unknown names) leaves it unset and the
// config's CTAPolicy stands.
// Ref: v2.30.7-1 src/init.cc getEnvCtaPolicyOnce
func ctaPolicyEnvSet(v string) bool {
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		return v[0] <= '2'
	}
	for _, tok := range strings.Split(v, "|") {
		switch strings.ToUpper(tok) {
		case "DEFAULT", "EFFICIENCY", "ZERO":
			return true
		}
	}
	return false
}

func ctaPolicyMaxOf(rs *Ruleset) int {
	if rs.Tuning.CTAPolicyMask {
		return ctaPolicyEfficiency | ctaPolicyZero
	}
	return rs.Tuning.CTAPolicyMax
}

func fieldOf(name string) (*configField, bool) {
	for i := range configFields {
		if configFields[i].name == name {
			return &configFields[i], true
		}
	}
	return nil, false
}

// ConfigFieldNames are the ncclConfig_t fields of any modelled release,
// in the struct's order.
func ConfigFieldNames() []string {
	out := make([]string, len(configFields))
	for i, f := range configFields {
		out[i] = f.name
	}
	return out
}

func unknownField(name string) error {
	return fmt.Errorf("unknown ncclConfig_t field %q: expected one of %s", name, strings.Join(ConfigFieldNames(), ", "))
}

// SetInt sets an integer field.
func (c *Config) SetInt(name string, v int) error {
	f, ok := fieldOf(name)
	if !ok {
		return unknownField(name)
	}
	if f.str {
		return fmt.Errorf("config field %s is a string (const char*), not a number", name)
	}
	if v < UndefInt || v > maxInt {
		return fmt.Errorf("config field %s=%d: expected a C int", name, v)
	}
	if v == UndefInt {
		return fmt.Errorf("config field %s=%d is NCCL_CONFIG_UNDEF_INT: leave the field out instead", name, v)
	}
	if c.ints == nil {
		c.ints = map[string]int{}
	}
	c.ints[name] = v
	return nil
}

// SetString sets a string field.
func (c *Config) SetString(name, v string) error {
	f, ok := fieldOf(name)
	if !ok {
		return unknownField(name)
	}
	if !f.str {
		return fmt.Errorf("config field %s is an int, not a string", name)
	}
	if len(v) > ConfigNameMax || strings.ContainsRune(v, 0) {
		return fmt.Errorf("config field %s: expected at most %d bytes and no NUL", name, ConfigNameMax)
	}
	if c.strs == nil {
		c.strs = map[string]string{}
	}
	c.strs[name] = v
	return nil
}

// Set sets a field from its text: a string field takes it as is, an int
// field a decimal (or 0x) C int.
func (c *Config) Set(name, text string) error {
	f, ok := fieldOf(name)
	if !ok {
		return unknownField(name)
	}
	if f.str {
		return c.SetString(name, text)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(text), 0, 32)
	if err != nil {
		return fmt.Errorf("config field %s=%q: expected an integer (a C int)", name, text)
	}
	return c.SetInt(name, int(n))
}

// Int returns a set integer field.
func (c *Config) Int(name string) (int, bool) {
	if c == nil {
		return 0, false
	}
	v, ok := c.ints[name]
	return v, ok
}

// String returns a set string field.
func (c *Config) Str(name string) (string, bool) {
	if c == nil {
		return "", false
	}
	v, ok := c.strs[name]
	return v, ok
}

// Len is the number of fields set.
func (c *Config) Len() int {
	if c == nil {
		return 0
	}
	return len(c.ints) + len(c.strs)
}

// Names are the fields set, in the struct's order.
func (c *Config) Names() []string {
	var out []string
	for _, f := range configFields {
		if _, ok := c.Int(f.name); ok {
			out = append(out, f.name)
		} else if _, ok := c.Str(f.name); ok {
			out = append(out, f.name)
		}
	}
	return out
}

// text is a set field's value as written.
func (c *Config) text(name string) string {
	if v, ok := c.Int(name); ok {
		return strconv.Itoa(v)
	}
	v, _ := c.Str(name)
	return v
}

// String is the fields set as name=value joined by ',' in the struct's
// order (what ParseConfig reads back); "" when none is.
func (c *Config) String() string {
	var b strings.Builder
	for i, n := range c.Names() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n + "=" + c.text(n))
	}
	return b.String()
}

// ConfigTextMax bounds the text ParseConfig reads.
const ConfigTextMax = 4096

// ParseConfig reads name=value items separated by ',' (the CLI's
// --config): NCCL's field names, each at most once.
func ParseConfig(s string) (*Config, error) {
	if len(s) > ConfigTextMax {
		return nil, fmt.Errorf("config: %d bytes: expected at most %d", len(s), ConfigTextMax)
	}
	c := &Config{}
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	for _, item := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("config item %q: expected name=value", item)
		}
		if slices.Contains(c.Names(), name) {
			return nil, fmt.Errorf("config field %s given twice", name)
		}
		if err := c.Set(name, val); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// UnmarshalJSON reads an object of NCCL's field names: a number for an
// int field, a string for netName and commName.
func (c *Config) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("expected an object of ncclConfig_t fields: %v", err)
	}
	*c = Config{}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		f, ok := fieldOf(name)
		if !ok {
			return unknownField(name)
		}
		raw := bytes.TrimSpace(m[name])
		if f.str {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("config field %s: expected a string", name)
			}
			if err := c.SetString(name, s); err != nil {
				return err
			}
			continue
		}
		var n int64
		if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
			return fmt.Errorf("config field %s: expected an integer (a C int), got %s", name, raw)
		}
		if n < UndefInt || n > maxInt {
			return fmt.Errorf("config field %s=%d: expected a C int", name, n)
		}
		if err := c.SetInt(name, int(n)); err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSON writes the fields set as an object.
func (c Config) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, c.Len())
	for n, v := range c.ints {
		m[n] = v
	}
	for n, v := range c.strs {
		m[n] = v
	}
	return json.Marshal(m)
}

// configFieldsThrough are the fields of the struct up to and including
// last: a release's ncclConfig_t only ever grew at its end.
func configFieldsThrough(last string) []string {
	var out []string
	for _, f := range configFields {
		out = append(out, f.name)
		if f.name == last {
			return out
		}
	}
	panic("spec: no ncclConfig_t field " + last) // a programming error in a release file
}

// CheckConfig refuses a field the release's ncclConfig_t lacks: a program
// built against that release's nccl.h cannot set it.
func (rs *Ruleset) CheckConfig(c *Config) error {
	for _, n := range c.Names() {
		if slices.Contains(rs.Consts.ConfigFields, n) {
			continue
		}
		since := ""
		for _, rel := range releaseList {
			if k, err := ConstsFor(rel.Version); err == nil && slices.Contains(k.ConfigFields, n) {
				since = fmt.Sprintf(" (it appears in %s)", rel.Version)
				break
			}
		}
		return fmt.Errorf("config field %s: NCCL %s's ncclConfig_t has no such field%s", n, rs.Version, since)
	}
	return nil
}

// configRule is G-ENV-CONFIG-1: the communicator's ncclConfig_t checked
// as parseCommConfig checks it, then envConfigOverride, where a set
// variable wins over the config field it stands for. The fields the gates
// read are written into the effective environment under that variable, so
// every later gate reads comm->config as NCCL does, and recorded in
// Comm.fromConfig, so the gates that cite the value cite the field.
func configRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-ENV-CONFIG-1", Layer: LayerEnv, Title: "communicator config (ncclConfig_t)",
		Doc: `ncclCommInitRankConfig's ncclConfig_t: parseCommConfig refuses a set field out of range with "Invalid config <field> attribute value" and ncclInvalidArgument (minCTAs and maxCTAs as "min/max channels": a set minCTAs above maxCTAs, NCCL_CONFIG_UNDEF_INT (INT_MIN) when unset, is refused too); then envConfigOverride lets a set variable override its field: NCCL_MIN_CTAS/NCCL_MAX_CTAS (only when positive from 2.25.1), NCCL_NET (set, even empty), NCCL_COLLNET_ENABLE, NCCL_CTA_POLICY, NCCL_NVLS_NCHANNELS, NCCL_NCHANNELS_PER_NET_PEER (positive), NCCL_P2P_MAX_PEERS (positive) and the rest of the fields' variables. numRmaCtx must be positive up to 2.30.4 and may be 0 from 2.30.7. A field the gates read (minCTAs, maxCTAs, netName, collnetEnable, CTAPolicy, nvlsCTAs, nChannelsPerNetPeer, numRmaCtx, maxP2pPeers) then stands for its variable, and the gates that read it cite the field ("config netName=Socket"), not the variable; the others are checked and reported only.`,
		Ref: ref,
		Logs: []string{"Invalid config %s attribute value %d", "Invalid config min/max channels attribute value %d/%d",
			"Comm config %s set to %s", "Comm config %s reset to %s=%d", "Comm config graphUsageMode reset to %d by NCCL_GRAPH_MIXING_SUPPORT=%d",
			"%s %d is too low, leaving it set at %d", "%s %d is not valid, leaving it set at %d", "NCCL_CGA_CLUSTER_SIZE value %d is too big. Limiting value to %d.",
			"NCCL_NUM_RMA_CTX=0, RMA disabled for this communicator", "minCTAs %d is larger than #channels upper limit %d, cap it to %d",
			"maxCTAs %d is larger than #channels upper limit %d, cap it to %d", "minCTAs %d is larger than maxCTAs %d, set both to %d",
			"splitShare %d is not a valid value 0/1, set it to 0", "CTAPolicy %d is not a valid value, set it to %d",
			"nvlsCTAs %d is not a valid value, NCCL will decide the default value automatically",
			"Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (%d). Unsetting POLICY_EFFICIENCY.",
			"Parsed environment variable NCCL_CTA_POLICY=%s to %d", "Unknown CTA policy %s passed as environment variable. Ignoring.",
			"No valid CTA policies found in NCCL_CTA_POLICY=%s.", ctaPolicyLegacyUnknown, "NCCL_CHECK_MODE set by environment to %s"},
		init: func(r *initRun) {
			cfg := r.comm.System.CommConfig
			if cfg.Len() == 0 {
				r.emit(Verdict{Outcome: Info, Why: "no ncclConfig_t (ncclCommInitRank): every field from its variable or NCCL's default",
					Log: configEnvLines(r.rs, r.env, cfg)})
				return
			}
			if msg, facts := configInvalid(r.rs, cfg); msg != "" {
				r.fail(InvalidArgument, msg)
				r.emit(Verdict{Outcome: Fail, Why: "parseCommConfig refuses the config: " + msg, Facts: facts, Log: []string{msg}})
				return
			}
			// before the kept fields write the environment
			logs := append(configSetLines(cfg), configEnvLines(r.rs, r.env, cfg)...)
			var facts []Fact
			var kept, over []string
			for _, n := range cfg.Names() {
				f, _ := fieldOf(n)
				if f.env != "" && f.envWins(r.rs, r.env, f.env) {
					facts = append(facts, F(n, cfg.text(n)+" (overridden by "+f.env+"="+r.env[f.env]+")"))
					over = append(over, n)
					continue
				}
				facts = append(facts, F(n, cfg.text(n)))
				kept = append(kept, n)
				if f.model {
					r.env[f.env] = configEnvText(r.rs, cfg, f)
					c := r.comm
					if c.fromConfig == nil {
						c.fromConfig = map[string]Fact{}
					}
					c.fromConfig[f.env] = F("config "+n, cfg.text(n))
				}
			}
			why := "config " + strings.Join(kept, ", ") + " kept"
			if len(kept) == 0 {
				why = "no config field kept"
			}
			if len(over) > 0 {
				why += "; the environment overrides " + strings.Join(over, ", ")
			}
			r.emit(Verdict{Outcome: Pass, Why: why, Facts: facts, Log: logs})
		},
	}
}

// configInvalid is parseCommConfig's first refusal of cfg, as NCCL's WARN
// writes it, with the facts it read; "" when cfg is valid.
func configInvalid(rs *Ruleset, cfg *Config) (string, []Fact) {
	for _, n := range cfg.Names() {
		f, _ := fieldOf(n)
		if n == "minCTAs" || n == "maxCTAs" {
			lo, okLo := cfg.Int("minCTAs")
			hi, okHi := cfg.Int("maxCTAs")
			if !okLo {
				lo = UndefInt
			}
			if !okHi {
				hi = UndefInt
			}
			if (okLo && lo <= 0) || (okHi && hi <= 0) || lo > hi {
				return fmt.Sprintf("Invalid config min/max channels attribute value %d/%d", lo, hi),
					[]Fact{F("minCTAs", lo), F("maxCTAs", hi), F("expected", "> 0 each, minCTAs <= maxCTAs (unset is INT_MIN)")}
			}
			continue
		}
		if v, ok := cfg.Int(n); ok && !f.valid(rs, v) {
			word := n
			switch n {
			case "CTAPolicy":
				word = "policy" // NCCL's WARN says so
			case "graphUsageMode":
				return fmt.Sprintf("Invalig config graphUsageMode attribute value %d", v), []Fact{F(n, v), F("expected", f.want)} // sic
			}
			return fmt.Sprintf("Invalid config %s attribute value %d", word, v), []Fact{F(n, v), F("expected", f.want)}
		}
	}
	return "", nil
}

// configEnvText is a kept field's value as its variable would say it.
func configEnvText(rs *Ruleset, cfg *Config, f *configField) string {
	if f.name != "CTAPolicy" || !rs.Tuning.CTAPolicyMask {
		return cfg.text(f.name)
	}
	// a policy mask: names, as getEnvCtaPolicyOnce reads them; with ZERO
	// and EFFICIENCY both set envConfigOverride unsets EFFICIENCY
	v, _ := cfg.Int(f.name)
	switch {
	case v&ctaPolicyZero != 0:
		return "ZERO"
	case v&ctaPolicyEfficiency != 0:
		return "EFFICIENCY"
	}
	return "DEFAULT"
}

// setting is the fact a gate cites for the effective value of variable
// name: the ncclConfig_t field when the communicator's config set it
// ("config netName=Socket"; NCCL's "set by environment" is not printed for
// it), else the variable as the environment has it, "(unset)" where
// NCCL's default stands.
func (c *Comm) setting(name string) Fact {
	if f, ok := c.fromConfig[name]; ok {
		return f
	}
	return F(name, envShow(c.Env.Lookup(name)))
}

// fromConfigVar says whether G-ENV-CONFIG-1 wrote name from the config.
func (c *Comm) fromConfigVar(name string) bool {
	_, ok := c.fromConfig[name]
	return ok
}

// settingsSet appends the settings of the variables among names that are
// set, by the environment or the config: a gate that reads a bound cites
// where it came from only when it is not NCCL's default.
func (c *Comm) settingsSet(dst []Fact, names ...string) []Fact {
	for _, n := range names {
		if _, ok := c.Env.Lookup(n); ok {
			dst = append(dst, c.setting(n))
		}
	}
	return dst
}

// configVar is the variable a cited config field stands for: the fact
// name "config collnetEnable" gives "NCCL_COLLNET_ENABLE", the variable
// that would override it; false for any other name.
func configVar(factName string) (string, bool) {
	name, ok := strings.CutPrefix(factName, "config ")
	if !ok {
		return "", false
	}
	f, ok := fieldOf(name)
	if !ok || f.env == "" {
		return "", false
	}
	return f.env, true
}
