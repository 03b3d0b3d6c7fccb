package spec

import (
	"reflect"
	"strings"
	"testing"
)

// Changing any one leaf of a node (every preset's, every field, however
// deep) changes its fingerprint, as it changes reflect.DeepEqual's answer;
// changing the host name alone changes neither.
func TestFingerprintIsDeepEquality(t *testing.T) {
	for _, name := range PresetNames() {
		sys, err := Preset(name, PresetOptions{Nodes: 2, SHARP: true})
		if err != nil {
			t.Fatal(err)
		}
		a, b := &sys.Nodes[0], &sys.Nodes[1]
		if string(nodeFingerprint(nil, a)) != string(nodeFingerprint(nil, b)) || a.Host == b.Host {
			t.Fatalf("%s: nodes that differ only in their host name have different fingerprints", name)
		}
		want := string(nodeFingerprint(nil, a))
		leaves := 0
		// mutate walks every settable leaf of b's copy, changes it, checks
		// and restores it
		var mutate func(v reflect.Value, path string)
		mutate = func(v reflect.Value, path string) {
			check := func() {
				leaves++
				c := *b
				c.Host = a.Host
				same := string(nodeFingerprint(nil, &c)) == want
				if deep := reflect.DeepEqual(*a, c); same != deep {
					t.Errorf("%s: changing %s: fingerprint equal %v, DeepEqual %v", name, path, same, deep)
				}
			}
			switch v.Kind() {
			case reflect.Bool:
				v.SetBool(!v.Bool())
				check()
				v.SetBool(!v.Bool())
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				old := v.Int()
				v.SetInt(old + 1)
				check()
				v.SetInt(old)
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				old := v.Uint()
				v.SetUint(old + 1)
				check()
				v.SetUint(old)
			case reflect.Float32, reflect.Float64:
				old := v.Float()
				v.SetFloat(old + 1)
				check()
				v.SetFloat(old)
			case reflect.String:
				old := v.String()
				v.SetString(old + "x")
				check()
				v.SetString(old)
			case reflect.Pointer:
				if !v.IsNil() {
					mutate(v.Elem(), path)
				}
			case reflect.Slice, reflect.Array:
				for i := range v.Len() {
					mutate(v.Index(i), path+"["+string(rune('0'+i%10))+"]")
				}
				if v.Kind() == reflect.Slice && v.Len() > 0 {
					old := v.Interface()
					v.Set(v.Slice(0, v.Len()-1))
					check()
					v.Set(reflect.ValueOf(old))
				}
			case reflect.Struct:
				for i := range v.NumField() {
					if v.Type().Field(i).IsExported() && v.Field(i).CanSet() {
						mutate(v.Field(i), path+"."+v.Type().Field(i).Name)
					}
				}
			case reflect.Map:
				if v.Len() > 0 {
					k := v.MapKeys()[0]
					old := v.MapIndex(k)
					v.SetMapIndex(k, reflect.Zero(old.Type()))
					check()
					v.SetMapIndex(k, old)
				}
			}
		}
		// b's slices and pointers are its own (presets build every node
		// afresh), so changing them leaves a alone
		mutate(reflect.ValueOf(b).Elem(), "node")
		if leaves < 20 {
			t.Errorf("%s: only %d leaves changed", name, leaves)
		}
	}
}

// A shared preset is the same machine as the one built node by node, and
// Init walks it to the same communicator; its nodes share, and a node
// whose field (any one, at the top or one struct down) differs does not.
func TestSharedPresetIsThePreset(t *testing.T) {
	rs := MustLoad(V2_28_9)
	for _, name := range PresetNames() {
		for _, o := range []PresetOptions{{Nodes: 1}, {Nodes: 3, SHARP: true}, {Nodes: 19}, {Nodes: 4, Cliques: 2}} {
			deep, err := Preset(name, o)
			if err != nil {
				continue // a shape the preset does not allow
			}
			o.Shared = true
			shared, err := Preset(name, o)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, o, err)
			}
			if !reflect.DeepEqual(deep, shared) {
				t.Fatalf("%s %+v: the shared preset differs from the one built node by node", name, o)
			}
			for i := 1; i < len(shared.Nodes); i++ {
				sameRack := shared.Nodes[i-1].mnnvlClique() == shared.Nodes[i].mnnvlClique()
				if sharesNode(&shared.Nodes[i-1], &shared.Nodes[i]) != sameRack {
					t.Fatalf("%s %+v: node %d shares node %d's facts: %v, expected %v (same MNNVL clique)", name, o, i, i-1, !sameRack, sameRack)
				}
			}
			a, errA := Init(rs, deep, Env{"NCCL_COLLNET_ENABLE": "1"})
			b, errB := Init(rs, shared, Env{"NCCL_COLLNET_ENABLE": "1"})
			if (errA == nil) != (errB == nil) || (errA == nil && !reflect.DeepEqual(a.Trace, b.Trace)) {
				t.Fatalf("%s %+v: Init differs on the shared preset", name, o)
			}
		}
		sys, _ := Preset(name, PresetOptions{Nodes: 2, Shared: true})
		a := &sys.Nodes[0]
		v := reflect.ValueOf(a).Elem()
		var fields []string
		for i := range v.NumField() {
			fields = append(fields, v.Type().Field(i).Name)
		}
		// sharesNode compares these: a new field must be compared there too
		if want := "Host CPU GPUs NVSwitch Driver NICs IPInterfaces Libs MNNVLClique MNNVLCliqueID Layout Topo VisibleDevices"; strings.Join(fields, " ") != want {
			t.Fatalf("Node's fields are %v, sharesNode compares %s: compare the new one", fields, want)
		}
		for i := range v.NumField() {
			f := v.Type().Field(i).Name
			b := *a
			b.Host = "other"
			if !sharesNode(a, &b) {
				t.Fatalf("%s: a copy with another host name does not share", name)
			}
			if changeOne(reflect.ValueOf(&b).Elem().Field(i)) && f != "Host" && sharesNode(a, &b) {
				t.Errorf("%s: nodes that differ in %s share", name, f)
			}
		}
	}
}

// changeOne gives v another value (a fresh slice, map or pointee for
// references, the first field for a struct); false when it cannot.
func changeOne(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Uint32:
		v.SetUint(v.Uint() + 1)
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Slice:
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		v.Set(c)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		} else {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			v.Set(c)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if changeOne(v.Field(i)) {
				return true
			}
		}
		return false
	default:
		return false
	}
	return true
}
