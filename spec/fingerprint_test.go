package spec

import (
	"reflect"
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
