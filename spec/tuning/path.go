package tuning

// Paths into a Consts value: "hwLatencies[NET][Ring][Simple]",
// "switch.ringRestore", "treeCorrectionFactor[LL][4]". They name the cells
// that release deltas change (Change.Path), that Diff lists, and
// that a tuner plugin's init edits (ConstantEdit). The names are the
// field names of ncclTunerConstants and the C identifiers where one exists.

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/nccl"
)

// tuningDim is one array dimension of a tagged field: how its indices are
// named.
type tuningDim string

const (
	tuningDimAlgo  tuningDim = "algo"
	tuningDimProto tuningDim = "proto"
	tuningDimHw    tuningDim = "hw"
	tuningDimCC    tuningDim = "cc"
	tuningDimScale tuningDim = "scale"
	tuningDimN     tuningDim = "n"
)

func (d tuningDim) name(i int) string {
	switch d {
	case tuningDimAlgo:
		return nccl.Algo(i).String()
	case tuningDimProto:
		return nccl.Proto(i).String()
	case tuningDimHw:
		return Hw(i).String()
	case tuningDimCC:
		return CompCap(i).String()
	case tuningDimScale:
		return Scale(i).String()
	}
	return strconv.Itoa(i)
}

// parse accepts the index name (case-insensitive) or its number.
func (d tuningDim) parse(s string, n int) (int, error) {
	if v, err := strconv.Atoi(s); err == nil {
		if v < 0 || v >= n {
			return 0, fmt.Errorf("index %d out of range 0..%d", v, n-1)
		}
		return v, nil
	}
	for i := 0; i < n; i++ {
		if strings.EqualFold(s, d.name(i)) {
			return i, nil
		}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = d.name(i)
	}
	return 0, fmt.Errorf("unknown %s index %q: expected one of %s", d, s, strings.Join(names, ", "))
}

// tuningField is one tagged field of Consts.
type tuningField struct {
	name  string
	dims  []tuningDim
	index int // struct field index
}

var tuningType = reflect.TypeOf(Consts{})

// tuningFields lists the tagged fields in declaration order.
func tuningFields() []tuningField {
	var out []tuningField
	for i := 0; i < tuningType.NumField(); i++ {
		tag := tuningType.Field(i).Tag.Get("tuning")
		if tag == "" {
			continue
		}
		parts := strings.Split(tag, ",")
		f := tuningField{name: parts[0], index: i}
		for _, p := range parts[1:] {
			f.dims = append(f.dims, tuningDim(p))
		}
		out = append(out, f)
	}
	return out
}

// tuningLeaf is one addressable cell with its path.
type tuningLeaf struct {
	path string
	v    reflect.Value
}

// walk calls fn for every leaf cell of t in declaration and index order.
func (t *Consts) walk(fn func(l tuningLeaf) bool) {
	root := reflect.ValueOf(t).Elem()
	for _, f := range tuningFields() {
		v := root.Field(f.index)
		if !tuningWalkValue(v, f.name, f.dims, fn) {
			return
		}
	}
}

func tuningWalkValue(v reflect.Value, path string, dims []tuningDim, fn func(tuningLeaf) bool) bool {
	if v.Kind() != reflect.Array {
		return fn(tuningLeaf{path: path, v: v})
	}
	d := tuningDimN
	var rest []tuningDim
	if len(dims) > 0 {
		d, rest = dims[0], dims[1:]
	}
	for i := 0; i < v.Len(); i++ {
		if !tuningWalkValue(v.Index(i), path+"["+d.name(i)+"]", rest, fn) {
			return false
		}
	}
	return true
}

// tuningPathOf finds the path of a pointer into t.
func tuningPathOf(t *Consts, p any) (string, bool) {
	target := reflect.ValueOf(p)
	if target.Kind() != reflect.Pointer || target.IsNil() {
		return "", false
	}
	addr := target.Pointer()
	var found string
	t.walk(func(l tuningLeaf) bool {
		if l.v.Addr().Pointer() == addr && l.v.Type() == target.Elem().Type() {
			found = l.path
			return false
		}
		return true
	})
	return found, found != ""
}

// Paths lists every cell and switch of the Consts value.
func (t *Consts) Paths() []string {
	var out []string
	t.walk(func(l tuningLeaf) bool { out = append(out, l.path); return true })
	return out
}

// lookup resolves a path such as "hwLatencies[NET][Ring][Simple]".
func (t *Consts) lookup(path string) (reflect.Value, error) {
	name, idx, err := tuningSplitPath(path)
	if err != nil {
		return reflect.Value{}, err
	}
	root := reflect.ValueOf(t).Elem()
	for _, f := range tuningFields() {
		if f.name != name {
			continue
		}
		v := root.Field(f.index)
		for k, s := range idx {
			if v.Kind() != reflect.Array {
				return reflect.Value{}, fmt.Errorf("tuning path %q: %s has %d indices, not %d", path, name, k, len(idx))
			}
			d := tuningDimN
			if k < len(f.dims) {
				d = f.dims[k]
			}
			i, err := d.parse(s, v.Len())
			if err != nil {
				return reflect.Value{}, fmt.Errorf("tuning path %q: %v", path, err)
			}
			v = v.Index(i)
		}
		if v.Kind() == reflect.Array {
			return reflect.Value{}, fmt.Errorf("tuning path %q: %s needs more indices", path, name)
		}
		return v, nil
	}
	return reflect.Value{}, fmt.Errorf("tuning path %q: unknown name %q: expected a tuner constant such as hwLatencies[NET][Ring][Simple] or a switch such as switch.ringRestore", path, name)
}

// tuningSplitPath splits "name[a][b]" into the name and the indices.
func tuningSplitPath(path string) (string, []string, error) {
	p := strings.TrimSpace(path)
	i := strings.IndexByte(p, '[')
	if i < 0 {
		if p == "" {
			return "", nil, fmt.Errorf("empty tuning path: expected a name such as llMaxBws[Hopper][N1]")
		}
		return p, nil, nil
	}
	name := p[:i]
	if name == "" {
		return "", nil, fmt.Errorf("tuning path %q: missing name before '['", path)
	}
	var idx []string
	rest := p[i:]
	for rest != "" {
		if rest[0] != '[' {
			return "", nil, fmt.Errorf("tuning path %q: expected '[' at %q", path, rest)
		}
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return "", nil, fmt.Errorf("tuning path %q: missing ']'", path)
		}
		s := strings.TrimSpace(rest[1:j])
		if s == "" {
			return "", nil, fmt.Errorf("tuning path %q: empty index", path)
		}
		idx = append(idx, s)
		rest = rest[j+1:]
	}
	return name, idx, nil
}

// GetPath returns the printed value of one cell or switch.
func (t *Consts) GetPath(path string) (string, error) {
	v, err := t.lookup(path)
	if err != nil {
		return "", err
	}
	return tuningFormatValue(v.Interface()), nil
}

// SetPath sets one cell or switch from its printed value (a number, true or
// false, or an enum name as String prints it).
func (t *Consts) SetPath(path, value string) error {
	v, err := t.lookup(path)
	if err != nil {
		return err
	}
	s := strings.TrimSpace(value)
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		bits := 64
		if v.Kind() == reflect.Float32 {
			bits = 32
		}
		x, err := strconv.ParseFloat(s, bits)
		if err != nil {
			return fmt.Errorf("tuning path %q: value %q: expected a number", path, value)
		}
		v.SetFloat(x)
	case reflect.Bool:
		x, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("tuning path %q: value %q: expected true or false", path, value)
		}
		v.SetBool(x)
	case reflect.Int, reflect.Int64:
		if v.Type().PkgPath() != "" { // a named enum such as NVLSBw: accept its names
			for k := int64(0); k < 16; k++ {
				c := reflect.New(v.Type()).Elem()
				c.SetInt(k)
				if st, ok := c.Interface().(fmt.Stringer); ok && strings.EqualFold(st.String(), s) {
					v.SetInt(k)
					return nil
				}
			}
		}
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("tuning path %q: value %q: expected an integer or a name", path, value)
		}
		v.SetInt(x)
	default:
		return fmt.Errorf("tuning path %q: cannot set a %s", path, v.Kind())
	}
	return nil
}

// tuningFormatValue prints a cell value: floats in their shortest exact
// form, enums by name.
func tuningFormatValue(x any) string {
	switch v := x.(type) {
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(x)
}

// Diff lists the cells and switches whose values differ between two
// Consts values, in declaration order; Ref is empty (a diff knows values,
// not where they come from — the changes of spec.Load's Ruleset do).
func Diff(a, b *Consts) []Change {
	va := map[string]string{}
	var order []string
	a.walk(func(l tuningLeaf) bool {
		va[l.path] = tuningFormatValue(l.v.Interface())
		order = append(order, l.path)
		return true
	})
	vb := map[string]string{}
	b.walk(func(l tuningLeaf) bool { vb[l.path] = tuningFormatValue(l.v.Interface()); return true })
	var out []Change
	for _, p := range order {
		if va[p] != vb[p] {
			out = append(out, Change{Path: p, Old: va[p], New: vb[p]})
		}
	}
	return out
}

// ConstantEdit is one constant a tuner plugin's init writes (v5+:
// ncclTunerConstants is passed to init before ncclTopoTuneModel runs), as a
// path and a value, e.g. {"hwLatencies[NET][Ring][Simple]", 5}.
type ConstantEdit struct {
	Path  string  `json:"path"`
	Value float64 `json:"value"`
}

// tuningConstantFields are the fields a tuner may edit
// (ncclTunerConstants_v5_t of src/include/plugin/tuner/tuner_v5.h).
var tuningConstantFields = map[string]bool{
	"baseLatencies": true, "hwLatencies": true, "llMaxBws": true, "perChMaxRingLL128Bws": true,
	"perChMaxTreeLL128Bws": true, "perChMaxTreeBws": true, "perChMaxNVLSTreeBws": true,
}

// ApplyConstantEdits applies a tuner's constant edits to a copy of t. Only
// the fields of ncclTunerConstants may be edited.
func (t *Consts) ApplyConstantEdits(edits []ConstantEdit) (*Consts, error) {
	c := t.Clone()
	for i, e := range edits {
		name, _, err := tuningSplitPath(e.Path)
		if err != nil {
			return nil, fmt.Errorf("tuner constant edit %d: %v", i, err)
		}
		if !tuningConstantFields[name] {
			return nil, fmt.Errorf("tuner constant edit %d: %q is not a tuner constant: expected one of baseLatencies, hwLatencies, llMaxBws, perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws, perChMaxNVLSTreeBws", i, name)
		}
		v, err := c.lookup(e.Path)
		if err != nil {
			return nil, fmt.Errorf("tuner constant edit %d: %v", i, err)
		}
		v.SetFloat(e.Value)
	}
	return c, nil
}
