package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"
)

// ParseSystem reads a system description in JSON or YAML (the format of
// System's json tags, documented in the README). name is used in errors.
// A document with a top-level "preset" key names a preset and may override
// its "nodes", "sharp" and "mnnvl_cliques" options and add "libs" to every
// node:
//
//	{"preset": "dgx-h100", "nodes": 4, "sharp": true}
//	{"preset": "gb200-nvl72", "nodes": 4, "mnnvl_cliques": 2}
//	{"preset": "dgx-b200", "mlopart": true}
func ParseSystem(name string, data []byte) (*System, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty system file: expected a JSON or YAML object with \"nodes\" or \"preset\"", name)
	}
	if !utf8Text(trimmed) {
		return nil, fmt.Errorf("%s: not a text file: expected a JSON or YAML system description", name)
	}
	js := trimmed
	if trimmed[0] != '{' {
		j, err := yaml.YAMLToJSON(trimmed)
		if err != nil {
			return nil, fmt.Errorf("%s: %v: expected a YAML mapping with \"nodes\" or \"preset\"", name, err)
		}
		js = j
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(js, &probe); err != nil {
		return nil, jsonErr(name, js, err, "a JSON object")
	}
	if raw, ok := probe["preset"]; ok {
		var preset string
		if err := json.Unmarshal(raw, &preset); err != nil {
			return nil, fmt.Errorf("%s: \"preset\" must be a string naming one of %s", name, strings.Join(PresetNames(), ", "))
		}
		var opts struct {
			Preset  string    `json:"preset"`
			Nodes   int       `json:"nodes"`
			SHARP   bool      `json:"sharp"`
			Cliques int       `json:"mnnvl_cliques"` // PresetOptions.Cliques
			MLOPart bool      `json:"mlopart"`       // PresetOptions.MLOPart
			Libs    []Library `json:"libs"`
			Conf    ConfFiles `json:"conf"`
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&opts); err != nil {
			return nil, jsonErr(name, js, err, `"preset", "nodes", "sharp", "mnnvl_cliques", "mlopart", "libs" and "conf" with a preset`)
		}
		sys, err := Preset(opts.Preset, PresetOptions{Nodes: opts.Nodes, SHARP: opts.SHARP, Cliques: opts.Cliques, MLOPart: opts.MLOPart})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		for i := range sys.Nodes {
			sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, opts.Libs...)
		}
		sys.Conf = opts.Conf
		if err := sys.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return sys, nil
	}
	var sys System
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sys); err != nil {
		return nil, jsonErr(name, js, err, "the fields of a system (name, nodes, conf)")
	}
	if sys.Name == "" {
		sys.Name = name
	}
	if err := sys.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &sys, nil
}

// ParseLibrary reads one plugin library description (the json tags of
// Library) for --plugin.
func ParseLibrary(name string, data []byte) (*Library, error) {
	js := bytes.TrimSpace(data)
	if len(js) == 0 {
		return nil, fmt.Errorf("%s: empty plugin file: expected a JSON or YAML object with \"path\"", name)
	}
	if js[0] != '{' {
		j, err := yaml.YAMLToJSON(js)
		if err != nil {
			return nil, fmt.Errorf("%s: %v: expected a YAML mapping with \"path\"", name, err)
		}
		js = j
	}
	var l Library
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, jsonErr(name, js, err, "the fields of a plugin library (path, net_symbols, collnet_symbols, net, collnet, ...)")
	}
	if l.Path == "" {
		return nil, fmt.Errorf("%s: plugin library without \"path\"", name)
	}
	probe := System{Nodes: []Node{{GPUs: []GPU{{SM: 90}}, Libs: []Library{l}}}}
	if err := probe.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "system : node 0: "))
	}
	return &l, nil
}

// jsonErr names the line and column of a JSON decoding error.
func jsonErr(name string, data []byte, err error, expected string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off >= 0 {
		line, col := lineCol(data, off)
		return fmt.Errorf("%s:%d:%d: %v: expected %s", name, line, col, err, expected)
	}
	return fmt.Errorf("%s: %v: expected %s", name, err, expected)
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func utf8Text(b []byte) bool {
	for _, r := range string(b) {
		if r == unicode.ReplacementChar || (r < 0x20 && r != '\n' && r != '\r' && r != '\t') {
			return false
		}
	}
	return true
}

// ParseBytes is gatesim's one size grammar, for every flag, file and request
// that takes a size: a plain number of bytes, or a number with a unit in
// nccl-tests' binary sense (its -b/-e parser multiplies K, M, G by powers of
// 1024): K, KB and KiB are 1024 bytes, M, MB, MiB 2^20, G, GB, GiB 2^30,
// T, TB, TiB 2^40; units are case-insensitive and B alone is bytes:
// "1MiB", "4K", "256MB", "1048576", "1.5G". A fraction must come out as
// whole bytes; negative sizes and overflow are refused.
func ParseBytes(s string) (int64, error) {
	orig := s
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("bad size %q: expected a number of bytes such as 1048576 or 1MiB", orig)
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	const ki, mi, gi, ti = 1 << 10, 1 << 20, 1 << 30, 1 << 40
	mult := map[string]float64{"": 1, "B": 1, "BYTE": 1, "BYTES": 1, "K": ki, "KB": ki, "KIB": ki, "KI": ki, "M": mi, "MB": mi, "MIB": mi, "MI": mi,
		"G": gi, "GB": gi, "GIB": gi, "GI": gi, "T": ti, "TB": ti, "TIB": ti, "TI": ti}
	m, ok := mult[strings.ToUpper(unit)]
	if !ok {
		return 0, fmt.Errorf("bad size %q: unknown unit %q: expected B, K, M, G or T (binary: K = KB = KiB = 1024 B)", orig, unit)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad size %q: %v", orig, err)
		}
		if n > 0 && m > float64(int64(1)<<62)/float64(n) {
			return 0, fmt.Errorf("bad size %q: overflows a 64-bit byte count", orig)
		}
		return n * int64(m), nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("bad size %q: %v", orig, err)
	}
	v := f * m
	if v > float64(int64(1)<<62) {
		return 0, fmt.Errorf("bad size %q: overflows a 64-bit byte count", orig)
	}
	if v != float64(int64(v)) {
		return 0, fmt.Errorf("bad size %q: not a whole number of bytes", orig)
	}
	return int64(v), nil
}

// FormatBytes prints a size the way the tables do: 4 KiB, 1 MiB, 16 GiB,
// or plain bytes when not a whole unit.
func FormatBytes(n int64) string {
	units := []struct {
		s string
		v int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.v && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + " " + u.s
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}
