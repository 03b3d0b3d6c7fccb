package params

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// TestTablesSortedAndWellFormed: every checked-in table parses, passes
// Check (sorted, unique, well-formed rows) and re-encodes to the same bytes.
func TestTablesSortedAndWellFormed(t *testing.T) {
	for _, v := range Versions {
		data, err := TableBytes(v)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		tab, err := ParseTable(v.Tag()+".tsv", bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if tab.Tag != v.Tag() {
			t.Errorf("%s: tag %q", v, tab.Tag)
		}
		if err := Check(tab); err != nil {
			t.Errorf("%s: %v", v, err)
		}
		if got := Encode(tab); !bytes.Equal(got, data) {
			t.Errorf("%s: Encode(ParseTable(file)) differs from the file", v)
		}
		if len(tab.Rows) < 100 {
			t.Errorf("%s: only %d rows: the generator lost reads", v, len(tab.Rows))
		}
	}
}

// TestTablesKnownFacts pins facts of NCCL's source the tables must carry;
// each was read in the source at the tag.
func TestTablesKnownFacts(t *testing.T) {
	type fact struct {
		v                 spec.Version
		name              string
		via               Via
		def, expr, config string
		values            []string
		read              string // a file:function among the reads
	}
	facts := []fact{
		{v: spec.V2_28_9, name: "NCCL_IB_TIMEOUT", via: ViaParam, def: "20", read: "src/transport/net_ib.cc:ncclIbRtsQp"},
		{v: spec.V2_28_9, name: "NCCL_NVLS_ENABLE", via: ViaParam, def: "2", read: "src/transport/nvls.cc:ncclNvlsInit"},
		{v: spec.V2_28_9, name: "NCCL_NVLS_NCHANNELS", via: ViaParam, def: "-2147483648", expr: "NCCL_CONFIG_UNDEF_INT", config: "nvlsCTAs"},
		{v: spec.V2_28_9, name: "NCCL_COLLNET_ENABLE", via: "ncclGetEnv", def: "unset", config: "collnetEnable", read: "src/init.cc:envConfigOverride"},
		{v: spec.V2_22_3, name: "NCCL_COLLNET_ENABLE", via: "ncclGetEnv", def: "unset", values: []string{"1"}, read: "src/init.cc:initTransportsRank"},
		{v: spec.V2_28_9, name: "NCCL_DEBUG", via: "getEnvFunc", def: "unset", values: []string{"VERSION", "WARN", "INFO", "ABORT", "TRACE"}},
		{v: spec.V2_30_7, name: "NCCL_DEBUG", via: ViaTypedParam, values: []string{"VERSION", "WARN", "INFO", "ABORT", "TRACE"}},
		{v: spec.V2_28_9, name: "NCCL_P2P_LEVEL", via: "ncclGetLevel", def: "unset", read: "src/graph/paths.cc:ncclGetUserP2pLevel"},
		{v: spec.V2_22_3, name: "NCCL_MAX_P2P_NCHANNELS", via: ViaParam, def: "32", expr: "MAXCHANNELS"},
		{v: spec.V2_28_9, name: "NCCL_MAX_P2P_NCHANNELS", via: ViaParam, def: "64", expr: "MAXCHANNELS"},
		{v: spec.V2_28_9, name: "NCCL_NET_PLUGIN", via: "ncclGetEnv", values: []string{"none"}},
		{v: spec.V2_22_3, name: "NCCL_NET_PLUGIN", via: "getenv"},
		{v: spec.V2_28_9, name: "NCCL_MAX_NRINGS", via: ViaParam, def: "-2", read: "src/graph/connect.cc:ncclMaxNchannels"},
	}
	for _, f := range facts {
		reg, err := Load(f.v)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := reg.Lookup(f.name)
		if !ok {
			t.Errorf("%s: %s missing", f.v, f.name)
			continue
		}
		i := slices.IndexFunc(p.Rows, func(r Row) bool { return r.Via == f.via })
		if i < 0 {
			t.Errorf("%s %s: no row read via %s (rows %v)", f.v, f.name, f.via, p.Rows)
			continue
		}
		r := p.Rows[i]
		if f.def != "" && r.Default != f.def {
			t.Errorf("%s %s: default %q, want %q", f.v, f.name, r.Default, f.def)
		}
		if f.expr != "" && r.Expr != f.expr {
			t.Errorf("%s %s: expr %q, want %q", f.v, f.name, r.Expr, f.expr)
		}
		if f.config != "" && !slices.Contains(r.Config, f.config) {
			t.Errorf("%s %s: config %v lacks %s", f.v, f.name, r.Config, f.config)
		}
		for _, val := range f.values {
			if !slices.Contains(r.Values, val) {
				t.Errorf("%s %s: values %v lack %q", f.v, f.name, r.Values, val)
			}
		}
		if f.read != "" && !slices.ContainsFunc(r.Reads, func(s Site) bool { return s.String() == f.read }) {
			t.Errorf("%s %s: reads %v lack %s", f.v, f.name, r.Reads, f.read)
		}
	}
	// absent names
	for _, c := range []struct {
		v    spec.Version
		name string
	}{{spec.V2_22_3, "NCCL_PAT_ENABLE"}, {spec.V2_28_3, "NCCL_ENV_PLUGIN"}, {spec.V2_28_9, "NCCL_TIMEOUT"}, {spec.V2_28_9, "NCCL_IB_GDR_LEVEL"}} {
		reg, _ := Load(c.v)
		if _, ok := reg.Lookup(c.name); ok {
			t.Errorf("%s: %s must not be in the table", c.v, c.name)
		}
	}
}

func TestParseTableErrors(t *testing.T) {
	hdr := strings.Join(Header("v2.28.9-1"), "\n") + "\n" + strings.Join(Columns, "\t") + "\n"
	cases := []struct{ in, want string }{
		{"", "no column header"},
		{"# at tag v1\nname\tvia\n", "bad column header"},
		{hdr + "NCCL_X\tNCCL_PARAM\n", "t.tsv:7: 2 columns: expected 13"},
		{hdr + "NCCL_X\tNCCL_PARAM\ts\tint64\t1\tmaybe\t-\t-\t-\t-\t-\tsrc/a.cc\t-\n", "column computed"},
		{hdr + "NCCL_X\tNCCL_PARAM\ts\tint64\t1\t-\t-\t-\tnotquoted\t-\t-\tsrc/a.cc\t-\n", "column values"},
		{hdr + "NCCL_X\tNCCL_PARAM\ts\tint64\t1\t-\t-\t-\t-\t-\t-\tsrc/a.cc\tnosite\n", "expected file:function"},
		{hdr + "\n", "empty line"},
	}
	for _, c := range cases {
		_, err := ParseTable("t.tsv", strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseTable(%q): error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestCheckFindsProblems: Check is not a rubber stamp.
func TestCheckFindsProblems(t *testing.T) {
	good := Row{Name: "NCCL_A", Via: ViaParam, Symbol: "ncclParamA", Type: "int64", Default: "1", Defined: "src/a.cc", Reads: []Site{{"src/a.cc", "f"}}}
	bad := []struct {
		rows []Row
		want string
	}{
		{[]Row{good, good}, "not sorted"},
		{[]Row{{Name: "NCCL_B", Via: ViaParam, Symbol: "s", Type: "int64", Default: "x", Defined: "src/a.cc"}}, "not an integer"},
		{[]Row{{Name: "nccl_b", Via: "getenv", Type: "string", Default: "unset", Reads: []Site{{"src/a.cc", "f"}}}}, "not an NCCL_ variable"},
		{[]Row{{Name: "NCCL_B", Via: "getenv", Type: "string", Default: "1", Reads: []Site{{"src/a.cc", "f"}}}}, "expected unset"},
		{[]Row{{Name: "NCCL_B", Via: "getenv", Type: "string", Default: "unset"}}, "no read site"},
		{[]Row{{Name: "NCCL_B", Via: "getenv", Type: "string", Default: "unset", Reads: []Site{{"src/b.cc", "f"}, {"src/a.cc", "f"}}}}, "reads not sorted"},
	}
	for _, c := range bad {
		err := Check(&Table{Tag: "v2.28.9-1", Rows: c.rows})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%v): %v, want %q", c.rows, err, c.want)
		}
	}
	if err := Check(&Table{Tag: "v2.28.9-1", Rows: []Row{good}}); err != nil {
		t.Errorf("good row: %v", err)
	}
}

// TestEncodeParseRoundTrip: any well-formed table survives Encode/ParseTable.
func TestEncodeParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringMatching(`NCCL_[A-Z][A-Z0-9_]{0,12}`)
		text := rapid.StringMatching(`[ -~\t\n]{0,12}`)
		word := rapid.StringMatching(`[A-Za-z0-9_=<>!-]{1,8}`)
		n := rapid.IntRange(0, 6).Draw(t, "n")
		var rows []Row
		for i := 0; i < n; i++ {
			r := Row{Name: name.Draw(t, "name"), Via: Via(rapid.SampledFrom([]string{"NCCL_PARAM", "ncclGetEnv", "getenv", "DEFINE_NCCL_PARAM"}).Draw(t, "via")),
				Symbol: word.Draw(t, "sym"), Type: rapid.SampledFrom([]string{"int64", "string", "const char *"}).Draw(t, "type"),
				Default: word.Draw(t, "def"), Computed: rapid.Bool().Draw(t, "computed"), Expr: text.Draw(t, "expr"),
				Parse:  rapid.SliceOfN(word, 0, 3).Draw(t, "parse"),
				Values: rapid.SliceOfN(text, 0, 3).Draw(t, "values"),
				Checks: rapid.SliceOfN(word, 0, 3).Draw(t, "checks"), Config: rapid.SliceOfN(word, 0, 2).Draw(t, "config"),
				Defined: "src/" + word.Draw(t, "file")}
			for _, f := range rapid.SliceOfN(word, 0, 3).Draw(t, "reads") {
				r.Reads = append(r.Reads, Site{File: "src/" + f + ".cc", Func: f})
			}
			rows = append(rows, r)
		}
		SortRows(rows)
		tab := &Table{Tag: "v2.28.9-1", Rows: rows}
		enc := Encode(tab)
		back, err := ParseTable("rt", bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("%v\n%s", err, enc)
		}
		if !bytes.Equal(Encode(back), enc) {
			t.Fatalf("re-encoding differs:\n%s\n%s", enc, Encode(back))
		}
		for i := range rows {
			if back.Rows[i].Expr != rows[i].Expr || !slices.Equal(back.Rows[i].Values, rows[i].Values) {
				t.Fatalf("row %d: %+v != %+v", i, back.Rows[i], rows[i])
			}
		}
	})
}

func FuzzParseTable(f *testing.F) {
	for _, v := range Versions {
		data, _ := TableBytes(v)
		f.Add(data[:min(len(data), 2000)])
	}
	f.Add([]byte("# at tag v1\n" + strings.Join(Columns, "\t") + "\nNCCL_A\t-\t-\t-\t-\t-\t-\t-\t\"x\" \"\"\t-\t-\t-\tsrc/a:b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ParseTable("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		// what parses re-encodes to something that parses to the same rows
		enc := Encode(tab)
		back, err := ParseTable("fuzz2", bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(back.Rows) != len(tab.Rows) {
			t.Fatalf("rows %d != %d", len(back.Rows), len(tab.Rows))
		}
	})
}
