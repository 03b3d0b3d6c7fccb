package tuning

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cLayout is the size and alignment of a C type on an LP64 host.
type cLayout struct{ size, align int }

// cHeader is what testdata/workstructs/<tag>.txt holds: the member
// declarations of the work structs of src/include/device.h at one tag,
// the defines their array bounds use, the underlying type of the work
// storage enum and ncclMaxKernelArgsSize's return expression.
type cHeader struct {
	defines     map[string]int
	enums       map[string]string
	maxArgsExpr string
	structs     map[string][]string // member lines, nested blocks included
	aligns      map[string]int      // alignas of each struct (1 when none)
	sizes       map[string]cLayout  // laid out so far
}

func readCHeader(t *testing.T, tag string) *cHeader {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "workstructs", tag+".txt"))
	if err != nil {
		t.Fatal(err) // the data must exist for every release from 2.22.3
	}
	h := &cHeader{defines: map[string]int{}, enums: map[string]string{}, structs: map[string][]string{}, aligns: map[string]int{}, sizes: map[string]cLayout{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	cur := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case cur != "" && line == "end":
			cur = ""
		case cur != "":
			h.structs[cur] = append(h.structs[cur], line)
		case len(f) == 3 && f[0] == "define":
			v, err := strconv.Atoi(f[2])
			if err != nil {
				t.Fatalf("%s.txt:%d: %v", tag, n, err)
			}
			h.defines[f[1]] = v
		case len(f) == 3 && f[0] == "enum":
			h.enums[f[1]] = f[2]
		case len(f) == 2 && f[0] == "ncclMaxKernelArgsSize":
			h.maxArgsExpr = f[1]
		case len(f) == 4 && f[0] == "struct" && f[2] == "align":
			a, err := strconv.Atoi(f[3])
			if err != nil {
				t.Fatalf("%s.txt:%d: %v", tag, n, err)
			}
			cur, h.aligns[f[1]] = f[1], a
		default:
			t.Fatalf("%s.txt:%d: unexpected line %q", tag, n, line)
		}
	}
	return h
}

// eval is an array bound or a constant: terms joined by '+', each a
// number, a define or a<<b.
func (h *cHeader) eval(expr string) (int, error) {
	sum := 0
	for _, term := range strings.Split(strings.ReplaceAll(expr, " ", ""), "+") {
		if a, b, ok := strings.Cut(term, "<<"); ok {
			x, err1 := h.eval(a)
			y, err2 := h.eval(b)
			if err1 != nil || err2 != nil {
				return 0, fmt.Errorf("bad shift %q", term)
			}
			sum += x << y
			continue
		}
		if v, ok := h.defines[term]; ok {
			sum += v
			continue
		}
		v, err := strconv.Atoi(term)
		if err != nil {
			return 0, fmt.Errorf("unknown term %q", term)
		}
		sum += v
	}
	return sum, nil
}

// scalar is the layout of a member's type (pointers included).
func (h *cHeader) scalar(typ string, pointer bool) (cLayout, error) {
	if pointer {
		return cLayout{8, 8}, nil
	}
	if e, ok := strings.CutPrefix(typ, "enum "); ok {
		u, ok := h.enums[e]
		if !ok {
			return cLayout{}, fmt.Errorf("enum %s without its underlying type", e)
		}
		typ = u
	}
	if s, ok := strings.CutPrefix(typ, "struct "); ok {
		l, ok := h.sizes[s]
		if !ok {
			return cLayout{}, fmt.Errorf("struct %s used before it is laid out", s)
		}
		return l, nil
	}
	switch typ {
	case "uint8_t", "int8_t", "char":
		return cLayout{1, 1}, nil
	case "uint16_t", "int16_t":
		return cLayout{2, 2}, nil
	case "uint32_t", "int32_t", "int", "float":
		return cLayout{4, 4}, nil
	case "uint64_t", "int64_t", "size_t", "ssize_t", "uintptr_t", "double":
		return cLayout{8, 8}, nil
	}
	return cLayout{}, fmt.Errorf("unknown type %q", typ)
}

// layout lays out the members lines[i:] of a struct (union: every member
// at offset 0) up to its closing "}" as GCC does on x86-64: a bit field
// goes at the next free bit unless it would straddle a unit of its
// declared type, which then starts afresh; a named bit field aligns the
// whole to its type. It returns the layout and the index after the block.
func (h *cHeader) layout(lines []string, i int, union bool) (cLayout, int, error) {
	bits, size, align := 0, 0, 1
	place := func(l cLayout) {
		if union {
			size, align = max(size, l.size), max(align, l.align)
			return
		}
		off := (bits + 7) / 8
		off = (off + l.align - 1) / l.align * l.align
		bits, align = (off+l.size)*8, max(align, l.align)
	}
	for i < len(lines) {
		line := lines[i]
		i++
		switch {
		case line == "}" || strings.HasPrefix(line, "} "):
			if !union {
				size = (bits + 7) / 8
			}
			size = (size + align - 1) / align * align
			return cLayout{size, align}, i, nil
		case line == "struct {" || line == "union {":
			l, next, err := h.layout(lines, i, line == "union {")
			if err != nil {
				return cLayout{}, 0, err
			}
			i = next
			place(l)
			continue
		}
		decl, ok := strings.CutSuffix(line, ";")
		if !ok {
			return cLayout{}, 0, fmt.Errorf("member %q does not end with ';'", line)
		}
		// the type is every word before the first declarator
		first := strings.Split(decl, ",")[0]
		if k := strings.IndexAny(first, "[:"); k >= 0 {
			first = first[:k]
		}
		sp := strings.LastIndexAny(strings.TrimSpace(first), " *")
		if sp < 0 {
			return cLayout{}, 0, fmt.Errorf("member %q has no type", line)
		}
		typ := strings.TrimSpace(decl[:sp+1])
		pointer := strings.HasSuffix(typ, "*")
		typ = strings.TrimSpace(strings.TrimRight(typ, "*"))
		for _, d := range strings.Split(decl[sp+1:], ",") {
			d = strings.TrimSpace(d)
			ptr := pointer || strings.HasPrefix(d, "*")
			d = strings.TrimLeft(d, "* ")
			l, err := h.scalar(typ, ptr)
			if err != nil {
				return cLayout{}, 0, fmt.Errorf("member %q: %w", line, err)
			}
			if name, width, ok := strings.Cut(d, ":"); ok && name != "" {
				w, err := strconv.Atoi(strings.TrimSpace(width))
				if err != nil {
					return cLayout{}, 0, fmt.Errorf("bit field %q: %w", d, err)
				}
				unit := l.size * 8
				if union {
					place(cLayout{(w + 7) / 8, l.align})
					continue
				}
				if bits/unit != (bits+w-1)/unit {
					bits = (bits + unit - 1) / unit * unit
				}
				bits += w
				align = max(align, l.align)
				continue
			}
			if name, bound, ok := strings.Cut(d, "["); ok && name != "" {
				n, err := h.eval(strings.TrimSuffix(bound, "]"))
				if err != nil {
					return cLayout{}, 0, fmt.Errorf("member %q: %w", line, err)
				}
				l.size *= n
			}
			place(l)
		}
	}
	return cLayout{}, 0, fmt.Errorf("block without its closing brace")
}

// sizeof lays out a struct of the header (after the structs it embeds).
func (h *cHeader) sizeof(name string) (int, error) {
	lines, ok := h.structs[name]
	if !ok {
		return 0, fmt.Errorf("struct %s is not in the data", name)
	}
	l, _, err := h.layout(append(lines[:len(lines):len(lines)], "}"), 0, false)
	if err != nil {
		return 0, fmt.Errorf("struct %s: %w", name, err)
	}
	a := max(l.align, h.aligns[name])
	l = cLayout{(l.size + a - 1) / a * a, a}
	h.sizes[name] = l
	return l.size, nil
}

// TestWorkStructsMatchSource holds the kernel-plan budget's struct sizes
// of every release from 2.22.3's enqueue rewrite (ScheduleR22) to the
// member declarations of src/include/device.h at its tag
// (testdata/workstructs, extracted as PROVENANCE.md there says), laid
// out as the compiler lays them out: ncclDevWorkColl (a task's work),
// ncclDevWorkCollReg (an NVLS-registered task's), ncclDevWorkP2p (one
// send/recv work), ncclDevWorkBatch (one
// per channel and batch in the arguments), ncclDevKernelArgs (the
// arguments' header) and ncclMaxKernelArgsSize.
func TestWorkStructsMatchSource(t *testing.T) {
	n := 0
	for _, r := range tuningReleases(t) {
		if r.tu.Schedule != ScheduleR22 {
			continue
		}
		n++
		h := readCHeader(t, r.v.Tag())
		for _, c := range []struct {
			name string
			got  int
		}{
			{"ncclDevWorkColl", r.tu.WorkCollBytes},
			{"ncclDevWorkCollReg", r.tu.WorkCollRegBytes},
			{"ncclDevWorkP2p", r.tu.WorkP2PBytes},
			{"ncclDevWorkBatch", r.tu.WorkBatchBytes},
			{"ncclDevKernelArgs", r.tu.KernelArgsBytes},
		} {
			want, err := h.sizeof(c.name)
			if err != nil {
				t.Fatalf("%s: %v", r.v, err)
			}
			if c.got != want {
				t.Errorf("%s: sizeof(struct %s) is %d at the tag, the release says %d", r.v, c.name, want, c.got)
			}
		}
		want, err := h.eval(h.maxArgsExpr)
		if err != nil {
			t.Fatalf("%s: ncclMaxKernelArgsSize: %v", r.v, err)
		}
		if r.tu.MaxKernelArgsBytes != want {
			t.Errorf("%s: ncclMaxKernelArgsSize is %d at the tag, the release says %d", r.v, want, r.tu.MaxKernelArgsBytes)
		}
	}
	if n < 21 {
		t.Fatalf("%d releases with the 2.22.3 schedule, want 21", n)
	}
}
