package nccl

import (
	"encoding/json"
	"fmt"
)

// JSON names the enums as NCCL does ("AllReduce", "Ring", "Simple",
// "ncclBfloat16", "ncclSum"; "none" for no algorithm or protocol) instead
// of their index. Reading accepts the names (any case, the forms the Parse
// functions take) and, for files written before, the index.

func (f Func) MarshalText() ([]byte, error)     { return []byte(f.String()), nil }
func (a Algo) MarshalText() ([]byte, error)     { return []byte(a.String()), nil }
func (p Proto) MarshalText() ([]byte, error)    { return []byte(p.String()), nil }
func (d DataType) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
func (r RedOp) MarshalText() ([]byte, error)    { return []byte(r.String()), nil }

func (f *Func) UnmarshalJSON(b []byte) error {
	return enumJSON(b, "collective", (*int)(f), func(s string) (int, error) { v, err := ParseFunc(s); return int(v), err })
}

func (a *Algo) UnmarshalJSON(b []byte) error {
	return enumJSON(b, "algorithm", (*int)(a), func(s string) (int, error) {
		if s == "none" {
			return int(AlgoNone), nil
		}
		v, err := ParseAlgo(s)
		return int(v), err
	})
}

func (p *Proto) UnmarshalJSON(b []byte) error {
	return enumJSON(b, "protocol", (*int)(p), func(s string) (int, error) {
		if s == "none" {
			return int(ProtoNone), nil
		}
		v, err := ParseProto(s)
		return int(v), err
	})
}

func (d *DataType) UnmarshalJSON(b []byte) error {
	return enumJSON(b, "datatype", (*int)(d), func(s string) (int, error) { v, err := ParseDataType(s); return int(v), err })
}

func (r *RedOp) UnmarshalJSON(b []byte) error {
	return enumJSON(b, "reduction", (*int)(r), func(s string) (int, error) { v, err := ParseRedOp(s); return int(v), err })
}

// enumJSON reads a JSON string through parse, or a number as the index.
func enumJSON(b []byte, what string, dst *int, parse func(string) (int, error)) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := parse(s)
		if err != nil {
			return err
		}
		*dst = v
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("%s %s: expected a name such as the ones NCCL prints, or an index", what, b)
	}
	*dst = n
	return nil
}
