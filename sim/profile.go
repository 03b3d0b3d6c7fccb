package sim

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec"
	yaml2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// ProfileSchema is the version of the profile file format. A file with
// another schema is refused.
const ProfileSchema = "gatesim-profile/v1"

// A Profile is a machine performance profile: what the timing model needs
// and NCCL's constants lack (fixed cost per launch mode, per-channel
// throughput caps by algorithm, protocol and threads, transport bandwidth
// and latency, per-release factors). Every parameter names its source:
// calibrated from named captures, or nominal (an NCCL or vendor constant,
// or "not modelled" where none exists). A parameter a profile does not
// list is nominal: see ProfileParams for each nominal value.
//
// The file format is YAML or JSON (docs/calibration.md).
type Profile struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// SM is the GPU generation the profile was measured on (compute
	// capability × 10); parameters of a generation transfer to machines of
	// the same SM.
	SM  int    `json:"sm"`
	Doc string `json:"doc,omitempty"`
	// Captures are the measurements the calibrated parameters come from.
	Captures []ProfileCapture `json:"captures,omitempty"`
	Params   map[string]Param `json:"params,omitempty"`
}

// ProfileCapture names one set of measurements.
type ProfileCapture struct {
	ID      string `json:"id"`
	Machine string `json:"machine"`
	Date    string `json:"date"`
	Release string `json:"release"`
	Rows    int    `json:"rows,omitempty"`
}

// Param is one profile parameter.
type Param struct {
	Value float64 `json:"value"`
	// Source is "calibrated" or "nominal".
	Source string `json:"source"`
	// From says where the value comes from: capture IDs for calibrated
	// parameters, the constant's origin for nominal ones.
	From string `json:"from,omitempty"`
}

// Calibrated reports whether any parameter was fitted to measurements.
func (p *Profile) Calibrated() bool {
	if p == nil {
		return false
	}
	for _, x := range p.Params {
		if x.Source == "calibrated" {
			return true
		}
	}
	return false
}

// Summary is the one line sim, whatif and the oracle print.
func (p *Profile) Summary() string {
	if p == nil {
		return "nominal (NCCL's constants; no profile)"
	}
	n := 0
	for _, x := range p.Params {
		if x.Source == "calibrated" {
			n++
		}
	}
	if n == 0 {
		return fmt.Sprintf("%s: nominal (NCCL's constants)", p.Name)
	}
	var ids []string
	for _, c := range p.Captures {
		if len(ids) == 0 || ids[len(ids)-1] != c.ID {
			ids = append(ids, c.ID)
		}
	}
	return fmt.Sprintf("%s: calibrated (%d parameters from %s; the rest nominal)", p.Name, n, strings.Join(ids, ", "))
}

// Short is the profile's name and whether it is calibrated.
func (p *Profile) Short() string {
	if p.Calibrated() {
		return p.Name + ": calibrated"
	}
	if p == nil {
		return "nominal"
	}
	return p.Name + ": nominal"
}

// ParamSpec documents a profile parameter: its unit, its nominal value and
// where that comes from.
type ParamSpec struct {
	Name, Unit, Doc string
	Nominal         float64
	NominalFrom     string
	// Generation: the parameter belongs to the GPU generation and
	// transfers to other machines of the same SM.
	Generation bool
	// Min and Max bound the value; ProfileParams sets them by kind:
	// times, bandwidths, factors.
	Min, Max float64
	// Zero, for a parameter whose range starts above 0, says what the
	// value 0 stands for ("no cap"): 0 is then accepted as that.
	Zero string
}

// Ranges of the kinds of parameter. A factor or efficiency near 0 would
// stop every byte (link.nvlink.eff 1e-300: 90,112 s for 1 MiB); a
// bandwidth below minBandwidth is no machine's, and a cap's 0 means "no
// cap", so a tiny cap would be slower than none by orders of magnitude.
const (
	maxMicros    = 1e6 // a fixed cost of a second is no launch's
	minFactor    = 0.01
	maxFactor    = 2 // twice NCCL's figure or the reference's
	minBandwidth = 0.01
	maxBandwidth = 1e6
	maxExponent  = 4 // calibrate's fit searches |exponent| ≤ 4
)

// withRange sets ps's range from its unit: times in [0, 1e6] us,
// bandwidths in [0.01, 1e6] GB/s (0 accepted as the nominal value says),
// factors and efficiencies in [0.01, 2].
func withRange(ps ParamSpec) ParamSpec {
	switch {
	case ps.Min != 0 || ps.Max != 0:
	case ps.Unit == "us":
		ps.Max = maxMicros
	case ps.Unit == "GB/s":
		ps.Min, ps.Max = minBandwidth, maxBandwidth
		// 0 is the nominal "not set": what it means, as NominalFrom says
		ps.Zero, _, _ = strings.Cut(strings.TrimPrefix(ps.NominalFrom, "0: "), " (")
		ps.Zero, _, _ = strings.Cut(ps.Zero, ";")
	default:
		ps.Min, ps.Max = minFactor, maxFactor
	}
	return ps
}

// Range says which values the parameter accepts, for errors and docs.
func (ps ParamSpec) Range() string {
	r := fmt.Sprintf("[%g, %g]", ps.Min, ps.Max)
	if ps.Unit != "" {
		r += " " + ps.Unit
	}
	if ps.Zero != "" {
		r = "0 (" + ps.Zero + ") or " + r
	}
	return r
}

// check reports whether v is in the parameter's range.
func (ps ParamSpec) check(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if v == 0 && ps.Zero != "" {
		return true
	}
	return v >= ps.Min && v <= ps.Max
}

var capAlgos = []spec.Algo{spec.Ring, spec.Tree}

// ProfileParams lists every parameter a profile may hold.
func ProfileParams() []ParamSpec {
	ps := []ParamSpec{
		{Name: "launch.stream", Unit: "us", Generation: true, Doc: "fixed cost of one operation launched on a stream (nccl-tests' default), charged before its first step in place of NCCL's baseLat",
			NominalFrom: "NCCL baseLatencies (src/graph/tuning.cc) per algorithm and protocol: the value 0 here selects them"},
		{Name: "launch.graph", Unit: "us", Generation: true, Doc: "fixed cost of one operation captured in a CUDA graph (nccl-tests -G)",
			NominalFrom: "launch.stream"},
		{Name: "launch.device", Unit: "us", Generation: true, Doc: "the device's part of the fixed cost of an operation launched on a stream (from the kernel's launch to its first step, and its end): it overlaps the host's launch.stream of the next operation of a timed batch",
			NominalFrom: "launch.graph"},
		{Name: "launch.channel", Unit: "us", Generation: true, Doc: "host cost of each channel beyond the first an operation launched on a stream runs on (NCCL prepares and uploads each channel's work)",
			NominalFrom: "0: not charged"},
		{Name: "launch.group_op", Unit: "us", Generation: true, Doc: "host cost of each further operation of a group (nccl-tests -m N): an operation of a group of N costs (launch + (N-1) × group_op) / N",
			NominalFrom: "0: NCCL's model has no per-operation host cost"},
		{Name: "launch.logged", Unit: "us", Generation: true, Doc: "host cost NCCL adds to each operation when it logs every operation (NCCL_DEBUG=INFO with the TUNING or COLL subsystem: one line per call)",
			NominalFrom: "0: not charged"},
		{Name: "fill.bw", Unit: "GB/s", Generation: true, Doc: "pipeline fill of a link-bound operation (LL128 or Simple over NVLink with 16 or more channels): it costs min(bytes / fill.bw, fill.max) beyond the steady state",
			NominalFrom: "0: no fill beyond the schedule's own"},
		{Name: "fill.base", Unit: "us", Generation: true, Doc: "the part of the pipeline fill that does not grow with the bytes (see fill.bw)",
			NominalFrom: "0: no fill beyond the schedule's own"},
		{Name: "fill.max", Unit: "us", Generation: true, Doc: "the most the pipeline fill costs (see fill.bw)",
			NominalFrom: "0: no fill beyond the schedule's own"},
		{Name: "hop.nvlink.scale", Unit: "", Nominal: 1, Generation: true, Doc: "factor on NCCL's NVLink per-step latency (hwLatencies)",
			NominalFrom: "1: NCCL hwLatencies (src/graph/tuning.cc)"},
		{Name: "link.nvlink.eff", Unit: "", Nominal: 1, Generation: true, Doc: "achievable fraction of NCCL's NVLink bandwidth (ncclTopoNVLinkBw × links)",
			NominalFrom: "1: NCCL's SM90 NVLink figure (src/graph/topo.h)"},
		{Name: "proto.LL.link", Unit: "", Nominal: 1, Generation: true, Doc: "factor on the NVLink efficiency of LL traffic (8-byte stores with flags, half of each line data) relative to LL128 and Simple",
			NominalFrom: "1: the wire bytes alone (LL's doubling is in the schedule)"},
		{Name: "transport.shm.bw", Unit: "GB/s", Doc: "bandwidth of the SHM transport (through host memory) between two GPUs of a node, per direction",
			NominalFrom: "0: timed over the machine's PCIe figure"},
		{Name: "transport.net.loopback.bw", Unit: "GB/s", Doc: "bandwidth, per direction, of NET between NCCL nodes that are pieces of one host (P2P and SHM off: NCCL splits the host, MachineForComm); with NET/Socket the bytes go GPU → host memory → the kernel's socket to the host's own address → host memory → GPU, so the interface speed NCCL reads says nothing of it",
			NominalFrom: "0: the NIC speed NCCL reads (NET/Socket: the interface's, 10 Gb/s when unreadable)"},
		{Name: "transport.net.loopback.lat", Unit: "us", Doc: "latency added to each step over NET between NCCL nodes that are pieces of one host (see transport.net.loopback.bw): the proxy threads' socket round trip through the kernel, beyond NCCL's NET per-step latency (hwLatencies)",
			NominalFrom: "0: NCCL's NET hwLatencies alone"},
		{Name: "transport.net.loopback.msg", Unit: "us", Doc: "proxy time of each NET message between NCCL nodes that are pieces of one host (see transport.net.loopback.bw), times the NET connections the busier of its two proxy threads serves: NET/Socket without helper threads (NCCL_SOCKET_NTHREADS unset off AWS and GCP) moves every message on the proxy progress thread itself, a size header and the data over one socket, and that thread visits each connection's send or receive in turn, so each message holds a channel's step for that long whatever its bytes",
			NominalFrom: "0: no per-message cost beyond the bytes"},
		{Name: "transport.net.loopback.rank.bw", Unit: "GB/s", Doc: "bandwidth one rank's NET sends and receives share between NCCL nodes that are pieces of one host (see transport.net.loopback.bw): one proxy thread per rank progresses both, through the same host memory",
			NominalFrom: "0: not shared (each direction over the GPU's PCIe figure)"},
		{Name: "transport.net.flush.iflush", Unit: "us", Nominal: 2, Doc: "time of one flush of a received step through the network plugin's iflush (G-NET-CONN-FLUSH-1, G-COLLNET-FLUSH-1), which the proxy waits for before it hands the step to the GPU: NCCL's IB (ncclIbIflush) posts an RDMA read of a few bytes of the GPU buffer on a loopback QP of the local NIC, so its cost is a PCIe round trip NIC ↔ GPU with the NIC's work request and completion, not a network hop",
			NominalFrom: "2: nominal, not measured (an estimate of the doorbell, the NIC's read of the GPU buffer over PCIe and the completion the proxy polls; NCCL has no constant for it: its cost model charges the graph's latencyInter, 0 for IB)"},
		{Name: "transport.net.flush.gdrcopy", Unit: "us", Nominal: 1, Doc: "time of one flush of a received step with gdrcopy (NCCL_GDRCOPY_FLUSH_ENABLE=1): the proxy's CPU loads 4 bytes of the receive buffer through its BAR mapping, an uncached PCIe read round trip CPU ↔ GPU",
			NominalFrom: "1: nominal, not measured (one uncached PCIe read of GPU memory; no NCCL constant)"},
		{Name: "threads.exponent", Unit: "", Nominal: 1, Generation: true, Min: -maxExponent, Max: maxExponent, Doc: "a channel's cap scales as (nThreads / NCCL's default)^exponent",
			NominalFrom: "1: throughput proportional to the threads copying"},
		{Name: "nvls.eff", Unit: "", Generation: true, Min: minFactor, Max: maxFactor, Zero: "NCCL's own factor", Doc: "achievable fraction of NCCL's NVLink bandwidth through the NVSwitch's multicast engine (NVLS; link.nvlink.eff applies to P2P connections only); 0 selects NCCL's own factor",
			NominalFrom: "0: NCCL's nvlsEfficiency (v2.28.9-1 src/graph/tuning.cc): 0.85 on Hopper (sm90), 0.74 on Blackwell (sm100), 1 elsewhere; not measured here (the lent machine runs with NCCL_NVLS_ENABLE=0)"},
		{Name: "sharp.eff", Unit: "", Nominal: 1, Doc: "achievable fraction of the NIC bandwidth through the network switch's reduction (SHARP)",
			NominalFrom: "1: not measured (no SHARP fabric lent)"},
	}
	for _, a := range capAlgos {
		for p := spec.Proto(0); p < spec.NumProtos; p++ {
			ps = append(ps, ParamSpec{Name: capName(a, p), Unit: "GB/s", Generation: true,
				Doc:         fmt.Sprintf("throughput cap of one %s/%s channel at NCCL's default thread count (one thread block's copy rate, protocol overhead included)", a, p),
				NominalFrom: "0: no cap (NCCL's tuning model, which the timing inherits, caps only its own estimate)"})
		}
	}
	// SendRecv and AllToAll too: their schedules run on p2p channels of one
	// thread block each, timed as Ring's (HopLatency, the caps)
	for _, f := range append(spec.Funcs[:], spec.SendRecv, spec.AllToAll) {
		ps = append(ps, ParamSpec{Name: funcName(f), Unit: "", Nominal: 1, Generation: true,
			Doc:         fmt.Sprintf("factor on a channel's cap for %s relative to AllReduce (the work per byte its primitives do)", f),
			NominalFrom: "1: every kernel moves bytes alike"})
		ps = append(ps, ParamSpec{Name: funcLinkName(f), Unit: "", Nominal: 1, Generation: true,
			Doc:         fmt.Sprintf("factor on the NVLink efficiency for %s's traffic relative to AllReduce's (a chain loads one direction of each link)", f),
			NominalFrom: "1: every pattern uses links alike"})
	}
	for _, v := range spec.Releases {
		ps = append(ps, ParamSpec{Name: releaseName(v), Unit: "", Nominal: 1,
			Doc:         fmt.Sprintf("factor on the bandwidth of NCCL %s relative to the profile's reference release", v),
			NominalFrom: "1: no difference between releases measured"})
	}
	for i := range ps {
		ps[i] = withRange(ps[i])
	}
	return ps
}

func capName(a spec.Algo, p spec.Proto) string { return "cap." + a.String() + "." + p.String() }
func funcName(f spec.Func) string              { return "func." + f.String() + ".bw" }
func funcLinkName(f spec.Func) string          { return "func." + f.String() + ".link" }

// ReleaseFactor is the profile's bandwidth factor for release v (a
// simulation reads no more of the release than this and the schedule).
func (p *Profile) ReleaseFactor(v spec.Version) float64 { return p.Value(releaseName(v)) }

func releaseName(v spec.Version) string {
	return "release." + v.String() + ".bw"
}

// paramSpecs indexes ProfileParams by name (built once, read only).
var paramSpecs = func() map[string]ParamSpec {
	m := map[string]ParamSpec{}
	for _, ps := range ProfileParams() {
		m[ps.Name] = ps
	}
	return m
}()

func paramSpec(name string) (ParamSpec, bool) {
	ps, ok := paramSpecs[name]
	return ps, ok
}

// Value is a parameter's value: the profile's, else its nominal value.
func (p *Profile) Value(name string) float64 {
	if p != nil {
		if x, ok := p.Params[name]; ok {
			return x.Value
		}
	}
	ps, _ := paramSpec(name)
	return ps.Nominal
}

// Source is a parameter's source: "calibrated" or "nominal".
func (p *Profile) Source(name string) string {
	if p != nil {
		if x, ok := p.Params[name]; ok {
			return x.Source
		}
	}
	return "nominal"
}

// maxProfileBytes bounds a profile file.
const maxProfileBytes = 1 << 20

// ParseProfile reads a profile (YAML or JSON) and validates it. name is
// the file's name, for errors.
func ParseProfile(b []byte, name string) (*Profile, error) {
	if len(b) > maxProfileBytes {
		return nil, fmt.Errorf("%s: %d bytes: a profile is at most %d", name, len(b), maxProfileBytes)
	}
	// strict: a key given twice is refused (YAML forbids it; the lenient
	// reader keeps the last value)
	j, err := yaml.YAMLToJSONStrict(b)
	if err != nil {
		if e := nonFinite(b); e != nil {
			return nil, fmt.Errorf("%s: %v", name, e)
		}
		return nil, fmt.Errorf("%s: %s", name, strings.ReplaceAll(err.Error(), "\n ", ""))
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v: expected a %s profile (docs/calibration.md)", name, err, ProfileSchema)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &p, nil
}

// nonFinite names the first value of the YAML that is NaN or infinite,
// which JSON cannot hold (the conversion's own error names no key).
func nonFinite(b []byte) error {
	var v any
	if yaml2.Unmarshal(b, &v) != nil {
		return nil
	}
	var walk func(path string, v any) error
	walk = func(path string, v any) error {
		switch x := v.(type) {
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				return nil
			}
			if k, ok := strings.CutPrefix(path, "params."); ok {
				if k, ok = strings.CutSuffix(k, ".value"); ok {
					if ps, known := paramSpec(k); known {
						return fmt.Errorf("parameter %q: value %g: expected %s", k, x, ps.Range())
					}
				}
			}
			return fmt.Errorf("%s: %g: expected a finite number", path, x)
		case map[any]any:
			keys := make([]string, 0, len(x))
			byKey := map[string]any{}
			for k, e := range x {
				ks := fmt.Sprint(k)
				keys = append(keys, ks)
				byKey[ks] = e
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if err := walk(p, byKey[k]); err != nil {
					return err
				}
			}
		case []any:
			for i, e := range x {
				if err := walk(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk("", v)
}

// Validate checks names, sources and ranges.
func (p *Profile) Validate() error {
	if p.Schema != ProfileSchema {
		return fmt.Errorf("schema %q: expected %q", p.Schema, ProfileSchema)
	}
	if p.Name == "" {
		return fmt.Errorf("profile without a name")
	}
	// the map in any order when it is valid; sorted for the first error
	bad := false
	for k, x := range p.Params {
		if checkParam(k, x) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	for _, k := range sortedKeys(p.Params) {
		if err := checkParam(k, p.Params[k]); err != nil {
			return err
		}
	}
	return nil
}

// checkParam checks one parameter's name, source and range.
func checkParam(k string, x Param) error {
	ps, ok := paramSpec(k)
	if !ok {
		return fmt.Errorf("parameter %q: unknown (docs/calibration.md lists them)", k)
	}
	if x.Source != "calibrated" && x.Source != "nominal" {
		return fmt.Errorf("parameter %q: source %q: expected calibrated or nominal", k, x.Source)
	}
	if !ps.check(x.Value) {
		return fmt.Errorf("parameter %q: value %g: expected %s", k, x.Value, ps.Range())
	}
	if x.Source == "calibrated" && x.From == "" {
		return fmt.Errorf("parameter %q: calibrated but names no capture", k)
	}
	return nil
}

// MarshalYAML writes the profile with sorted keys.
func (p *Profile) MarshalYAML() ([]byte, error) { return yaml.Marshal(p) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

//go:embed profiles/*.yaml
var profileFiles embed.FS

// BuiltinProfile returns a profile shipped with gatesim by name
// (profiles/NAME.yaml).
func BuiltinProfile(name string) (*Profile, error) {
	b, err := profileFiles.ReadFile("profiles/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no built-in profile %q", name)
	}
	return ParseProfile(b, "profiles/"+name+".yaml")
}

// NominalProfile is the profile of a machine nothing was measured on:
// every parameter nominal.
func NominalProfile(sm int) *Profile {
	return &Profile{Schema: ProfileSchema, Name: fmt.Sprintf("nominal-sm%d", sm), SM: sm}
}

// DefaultProfile is the profile a machine carries: the calibrated profile
// of the machine it was measured on (the project's 2 × H200, system names
// starting "h200x2"), else ProfileFor its GPU generation.
func DefaultProfile(system string, sm int) *Profile {
	if strings.HasPrefix(system, "h200x2") {
		if p, err := BuiltinProfile("h200x2"); err == nil {
			return p
		}
	}
	return ProfileFor(sm)
}

// ProfileFor is the profile a machine of this GPU generation carries: the
// calibrated profile of its generation (parameters that belong to the
// generation carry over; the others stay nominal), else the nominal one.
// Preset machines name their profile in Machine.Profile.
func ProfileFor(sm int) *Profile {
	if sm == 90 {
		if p, err := BuiltinProfile("h200x2"); err == nil {
			return p.Generation()
		}
	}
	return NominalProfile(sm)
}

// Generation is the profile restricted to the parameters that belong to
// the GPU generation (what transfers to another machine of the same SM).
func (p *Profile) Generation() *Profile {
	q := *p
	q.Name = p.Name + " (generation)"
	q.Params = map[string]Param{}
	for k, x := range p.Params {
		if ps, ok := paramSpec(k); ok && ps.Generation {
			q.Params[k] = x
		}
	}
	return &q
}
