package topo

import (
	"reflect"
	"testing"
)

// Every Params field but Release names its place in NCCL's source, so a
// release's changelog never cites a made-up location.
func TestEveryParamHasASource(t *testing.T) {
	typ := reflect.TypeOf(Params{})
	for i := range typ.NumField() {
		f := typ.Field(i).Name
		if f == "Release" {
			continue
		}
		if _, ok := paramSources[f]; !ok {
			t.Errorf("Params.%s has no entry in paramSources", f)
		}
	}
	for f := range paramSources {
		if _, ok := typ.FieldByName(f); !ok {
			t.Errorf("paramSources names %s, which Params does not have", f)
		}
	}
}
