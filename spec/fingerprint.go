package spec

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
)

// nodeFingerprint is an exact encoding of a node without its host name:
// two nodes have the same fingerprint exactly when they are deeply equal
// apart from Host (a detailed topology, Topo, counts by identity, as the
// topology stage keys it). Grouping nodes by it costs one encoding per
// node instead of a deep comparison per node and kind of node.
func nodeFingerprint(buf []byte, n *Node) []byte {
	x := *n
	x.Host = ""
	topo := x.Topo
	x.Topo = nil
	buf = encodeValue(buf, reflect.ValueOf(x))
	return binary.LittleEndian.AppendUint64(buf, uint64(reflect.ValueOf(topo).Pointer()))
}

// encodeValue appends a self-delimiting encoding of v: kinds and lengths
// are written, so different values never share an encoding. Node holds no
// cycles (its one pointer graph, Topo, is encoded by identity).
func encodeValue(buf []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(buf, 1)
		}
		return append(buf, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.AppendUvarint(buf, v.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v.Float()+0)) // -0 == +0
	case reflect.String:
		s := v.String()
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(buf, 0)
		}
		buf = append(buf, 1)
		if v.Kind() == reflect.Interface {
			buf = encodeValue(buf, reflect.ValueOf(v.Elem().Type().String()))
		}
		return encodeValue(buf, v.Elem())
	case reflect.Slice:
		if v.IsNil() { // DeepEqual tells a nil slice from an empty one
			return append(buf, 0)
		}
		buf = append(buf, 1)
		fallthrough
	case reflect.Array:
		buf = binary.AppendUvarint(buf, uint64(v.Len()))
		for i := range v.Len() {
			buf = encodeValue(buf, v.Index(i))
		}
		return buf
	case reflect.Struct:
		for i := range v.NumField() {
			buf = encodeValue(buf, v.Field(i))
		}
		return buf
	case reflect.Map:
		if v.IsNil() {
			return append(buf, 0)
		}
		buf = append(buf, 1)
		buf = binary.AppendUvarint(buf, uint64(v.Len()))
		// entries in the order of their keys' encodings
		type kv struct{ k, v []byte }
		var es []kv
		it := v.MapRange()
		for it.Next() {
			es = append(es, kv{encodeValue(nil, it.Key()), encodeValue(nil, it.Value())})
		}
		slices.SortFunc(es, func(a, b kv) int { return compareBytes(a.k, b.k) })
		for _, e := range es {
			buf = append(buf, e.k...)
			buf = append(buf, e.v...)
		}
		return buf
	}
	// funcs and channels (a Node has none) by identity
	if v.IsNil() {
		return append(buf, 0)
	}
	return binary.AppendUvarint(append(buf, 1), uint64(v.Pointer()))
}

func compareBytes(a, b []byte) int {
	return slices.Compare(a, b)
}

// sharesNode reports whether b is a copy of a that shares every slice and
// pointer with it and has the same other fields, the host name apart
// (PresetOptions.Shared builds such nodes): then the two are deeply equal
// without encoding either. False says nothing: the fingerprint decides.
// Every field of Node is compared here (TestSharedPresetIsThePreset fails
// when one is added and not compared).
func sharesNode(a, b *Node) bool {
	return a.CPU == b.CPU && a.NVSwitch == b.NVSwitch && a.Driver == b.Driver &&
		a.MNNVLClique == b.MNNVLClique && a.MNNVLCliqueID == b.MNNVLCliqueID && a.Layout == b.Layout && a.Topo == b.Topo &&
		a.VisibleDevices == b.VisibleDevices &&
		sameSlice(a.GPUs, b.GPUs) && sameSlice(a.NICs, b.NICs) &&
		sameSlice(a.IPInterfaces, b.IPInterfaces) && sameSlice(a.Libs, b.Libs)
}

// sameSlice: both nil, or the same length over the same elements.
func sameSlice[T any](x, y []T) bool {
	return (x == nil) == (y == nil) && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
}
