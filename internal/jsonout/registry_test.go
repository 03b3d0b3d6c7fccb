package jsonout

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

type regOut struct {
	N int `json:"n"`
}

// TestRegistry: a registered output prints with its version; an unknown
// name or a value of another type is refused.
func TestRegistry(t *testing.T) {
	r := Registry{{Name: "x", Version: 3, Type: reflect.TypeFor[regOut]()}}
	if v, err := r.Version("x"); err != nil || v != 3 {
		t.Errorf("Version(x) = %d, %v", v, err)
	}
	var b bytes.Buffer
	if err := r.Write(&b, "x", &regOut{N: 7}); err != nil || !strings.HasPrefix(b.String(), "{\n  \"schema\": 3") || !strings.Contains(b.String(), `"n": 7`) {
		t.Errorf("Write: %v\n%s", err, b.String())
	}
	if _, err := r.Version("y"); err == nil {
		t.Error("Version(y): no error")
	}
	if err := r.Write(&b, "y", regOut{}); err == nil {
		t.Error("Write(y): no error")
	}
	if err := r.Write(&b, "x", 5); err == nil || !strings.Contains(err.Error(), "registered as") {
		t.Errorf("Write of an int: %v", err)
	}
}
