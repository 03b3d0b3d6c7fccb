package jsonout

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	// fieldsJSON marks a type whose MarshalJSON writes its fields as
	// encoding/json does (it only fills some in first): its schema is its
	// fields'.
	fieldsJSON = reflect.TypeFor[interface{ JSONFields() }]()
)

// Schema is the JSON Schema (draft 2020-12) of what Write prints for a
// value of type t: an object with "schema": version first, the type's
// fields under their Key names, required unless omitempty, and no others.
// A pointer field is its element or null, unless tagged schema:"nonnull"
// (its type's MarshalJSON never writes null there).
func Schema(title string, version int, t reflect.Type) map[string]any {
	g := &gen{visiting: map[reflect.Type]bool{}}
	s := g.of(t)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = title
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	props["schema"] = map[string]any{"const": version}
	req, _ := s["required"].([]string)
	s["required"] = append([]string{"schema"}, req...)
	s["type"] = "object"
	return s
}

type gen struct{ visiting map[reflect.Type]bool }

func (g *gen) of(t reflect.Type) map[string]any {
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		switch {
		case (t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler)) && !t.Implements(fieldsJSON):
			return map[string]any{} // its own encoding: any value
		case t.Implements(textMarshaler) || pt.Implements(textMarshaler):
			return map[string]any{"type": "string"}
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Pointer:
		return map[string]any{"anyOf": []any{g.of(t.Elem()), map[string]any{"type": "null"}}}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": []any{"string", "null"}}
		}
		return map[string]any{"type": []any{"array", "null"}, "items": g.of(t.Elem())}
	case reflect.Array:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": []any{"object", "null"}, "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		if g.visiting[t] {
			return map[string]any{} // a recursive type: its inner levels are not described
		}
		g.visiting[t] = true
		defer delete(g.visiting, t)
		props := map[string]any{}
		var req []string
		g.fields(t, props, &req)
		sort.Strings(req)
		return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
	}
	return map[string]any{}
}

// fields adds a struct's encoded fields, embedded structs flattened, as
// encoding/json names them (then by Key).
func (g *gen) fields(t reflect.Type, props map[string]any, req *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, req)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		name = Key(name)
		s := g.of(f.Type)
		if f.Type.Kind() == reflect.Pointer && f.Tag.Get("schema") == "nonnull" {
			s = g.of(f.Type.Elem()) // its MarshalJSON writes nil as a value
		}
		if strings.Contains(opts, "string") {
			s = map[string]any{"type": "string"}
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*req = append(*req, name)
		}
	}
}

// Validate checks a decoded JSON document (encoding/json's any) against a
// schema made by Schema and returns every violation with its path.
func Validate(schema map[string]any, doc any) []string {
	var errs []string
	validate(schema, doc, "$", &errs)
	return errs
}

func validate(s map[string]any, v any, path string, errs *[]string) {
	bad := func(format string, args ...any) { *errs = append(*errs, path+": "+fmt.Sprintf(format, args...)) }
	if c, ok := s["const"]; ok {
		if fmt.Sprint(c) != fmt.Sprint(v) {
			bad("want %v, got %v", c, v)
		}
	}
	if any, ok := s["anyOf"].([]any); ok {
		for _, alt := range any {
			var sub []string
			validate(toMap(alt), v, path, &sub)
			if len(sub) == 0 {
				return
			}
		}
		bad("matches none of the allowed shapes")
		return
	}
	if tt, ok := s["type"]; ok && !typeOK(tt, v) {
		bad("type %s, want %v", jsonType(v), tt)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		props := toMap(s["properties"])
		for _, r := range toStrings(s["required"]) {
			if _, ok := x[r]; !ok {
				bad("required field %q missing", r)
			}
		}
		for k, sub := range x {
			if ps, ok := props[k]; ok {
				validate(toMap(ps), sub, path+"."+k, errs)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					bad("field %q is not in the schema", k)
				}
			case map[string]any:
				validate(ap, sub, path+"."+k, errs)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				validate(items, e, fmt.Sprintf("%s[%d]", path, i), errs)
			}
		}
	}
}

func typeOK(tt any, v any) bool {
	want := []string{}
	switch x := tt.(type) {
	case string:
		want = append(want, x)
	case []any:
		for _, e := range x {
			want = append(want, fmt.Sprint(e))
		}
	case []string:
		want = x
	}
	got := jsonType(v)
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return true
		}
	}
	return false
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			return "number"
		}
		return "integer"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func toMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func toStrings(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}
