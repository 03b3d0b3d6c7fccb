// Package jsonout is the one JSON writer of gatesim's commands: every
// output is an object that starts with "schema": N, its field names are
// snake_case, and its floating-point numbers carry the digits that mean
// something (float32 arithmetic prints 48.119998931884766 for 48.12).
// Schema derives the JSON Schema of an output from its Go type with the
// same key rule, and Validate checks a document against one.
package jsonout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// Digits is how many significant digits a float keeps: more than any
// time or bandwidth gatesim computes means, fewer than float32 noise.
const Digits = 6

// Write encodes v, indented, with "schema": schema first.
func Write(w io.Writer, schema int, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	out, err := Normalize(raw, schema)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, out, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err = w.Write(b.Bytes())
	return err
}

// Key is the name a field takes in output: lowerCamel and UpperCamel names
// become snake_case (nChannels → n_channels, typeIntra → type_intra, Algo →
// algo); names with an underscore, a dot or no lower-case letter are data
// (NCCL_ALGO, net.ib.using, NVLS) and stay as they are.
func Key(s string) string {
	if s == "" || strings.ContainsAny(s, "_.-: /") || strings.ToUpper(s) == s {
		return s
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return s
		}
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			// a new word starts at an upper-case letter after a lower-case
			// one or a digit, or at the last capital of a run (NVLSTree →
			// nvls_tree)
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			runEnd := i > 0 && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || runEnd {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Round keeps Digits significant digits of a float.
func Round(f float64) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', Digits, 64), 64)
	return v
}

// Normalize rewrites a JSON object: keys by Key, floats by Round, and
// "schema": schema as the first key. The order of keys is kept.
func Normalize(raw []byte, schema int) ([]byte, error) { return normalize(raw, schema, true) }

// NormalizePart rewrites one part of an output (an element of a streamed
// array) as Normalize does, without the schema.
func NormalizePart(raw []byte) ([]byte, error) { return normalize(raw, 0, false) }

func normalize(raw []byte, schema int, whole bool) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b bytes.Buffer
	// stack of containers: true for an object
	var stack []bool
	// whether the next token in an object is a key; and whether a comma is
	// due before the next value
	expectKey := false
	needComma := []bool{}
	top := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		inObj := len(stack) > 0 && stack[len(stack)-1]
		writeSep := func() {
			if len(needComma) > 0 {
				if needComma[len(needComma)-1] {
					b.WriteByte(',')
				}
				needComma[len(needComma)-1] = true
			}
		}
		if inObj && expectKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				b.WriteByte('}')
				stack, needComma = stack[:len(stack)-1], needComma[:len(needComma)-1]
				expectKey = len(stack) > 0 && stack[len(stack)-1]
				continue
			}
			k, _ := tok.(string)
			writeSep()
			kb, _ := json.Marshal(Key(k))
			b.Write(kb)
			b.WriteByte(':')
			expectKey = false
			continue
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top && d == '[' && whole {
					return nil, fmt.Errorf("jsonout: the output is an array, not an object")
				}
				if !inObj {
					writeSep()
				}
				b.WriteRune(rune(d))
				stack = append(stack, d == '{')
				needComma = append(needComma, false)
				if d == '{' {
					if top && whole {
						fmt.Fprintf(&b, `"schema":%d`, schema)
						needComma[len(needComma)-1] = true
					}
					expectKey = true
				}
				top = false
			case '}', ']':
				b.WriteRune(rune(d))
				stack, needComma = stack[:len(stack)-1], needComma[:len(needComma)-1]
				expectKey = len(stack) > 0 && stack[len(stack)-1]
			}
			continue
		}
		if top && whole {
			return nil, fmt.Errorf("jsonout: the output is a %T, not an object", tok)
		}
		if !inObj {
			writeSep()
		}
		switch v := tok.(type) {
		case json.Number:
			s := v.String()
			if strings.ContainsAny(s, ".eE") {
				f, err := v.Float64()
				if err != nil {
					return nil, err
				}
				s = strconv.FormatFloat(Round(f), 'f', -1, 64)
				if math.Abs(f) >= 1e21 || (f != 0 && math.Abs(f) < 1e-6) {
					s = strconv.FormatFloat(Round(f), 'g', -1, 64)
				}
			}
			b.WriteString(s)
		default:
			vb, _ := json.Marshal(v)
			b.Write(vb)
		}
		if inObj {
			expectKey = true
		}
	}
	return b.Bytes(), nil
}

// Output is one --json output a program registers: its name (the schema's
// file, docs/schema/NAME.schema.json), its schema version and the Go type
// it prints.
type Output struct {
	Name    string
	Version int
	Type    reflect.Type
}

// Registry is a program's --json outputs; printing an unregistered name,
// or a value of another type than registered, is the program's bug.
type Registry []Output

// Version is the schema version of the output named name.
func (r Registry) Version(name string) (int, error) {
	for _, o := range r {
		if o.Name == name {
			return o.Version, nil
		}
	}
	return 0, fmt.Errorf("internal: no --json output named %s", name)
}

// Write prints v as the output named name (Write with its version).
func (r Registry) Write(w io.Writer, name string, v any) error {
	for _, o := range r {
		if o.Name != name {
			continue
		}
		t := reflect.TypeOf(v)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != o.Type {
			return fmt.Errorf("internal: --json output %s is a %s, registered as %s", name, t, o.Type)
		}
		return Write(w, o.Version, v)
	}
	return fmt.Errorf("internal: no --json output named %s", name)
}
