package topo

import (
	"os"
	"strings"
	"testing"
)

const baselineDir = "../../golden/testdata/captured/h200x2-2.28.9/baseline/"

func readCaptured(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(baselineDir + name)
	if err != nil {
		t.Fatalf("committed capture missing: %v", err)
	}
	return string(b)
}

// nchannels of 65 and more indexed past the search's arrays (a panic);
// negative counts were accepted. Both are refused with file:line, the
// former with the release's MAXCHANNELS.
func TestGraphXMLChannelsBounded(t *testing.T) {
	graph := readCaptured(t, "graph.xml")
	if _, err := ParseGraphXML("g.xml", []byte(strings.Replace(graph, `nchannels="12"`, `nchannels="-12"`, 1))); err == nil || !strings.Contains(err.Error(), "g.xml:2") {
		t.Errorf("nchannels -12: %v", err)
	}
	s := mustPreset(t, "h200x2")
	for _, tc := range []struct {
		rel  string
		n    string
		want string
	}{{"2.28.9", "65", "at most 64"}, {"2.28.9", "1000", "at most 64"}, {"2.22.3", "33", "at most 32"}} {
		gs, err := ParseGraphXML("g.xml", []byte(strings.Replace(graph, `nchannels="12"`, `nchannels="`+tc.n+`"`, 1)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := paramsForRelease(tc.rel)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.NvlsEnable = 0
		o.GraphFile = gs
		_, err = Search([]*System{s}, p, o)
		if err == nil || !strings.Contains(err.Error(), "g.xml:2") || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "MAXCHANNELS") {
			t.Errorf("%s nchannels %s: %v", tc.rel, tc.n, err)
		}
	}
}

// Physical nonsense in a topology XML is refused with the element's line.
func TestTopologyXMLNonsense(t *testing.T) {
	x := readCaptured(t, "topo.xml")
	for name, c := range map[string]struct{ old, new, want string }{
		"negative nvlink count": {`count="18"`, `count="-18"`, "t.xml:5"},
		"zero nvlink count":     {`count="18"`, `count="0"`, "t.xml:5"},
		"negative NIC speed":    {`speed="10000"`, `speed="-400000"`, "t.xml:9"},
		"zero maxconn":          {`maxconn="65536"`, `maxconn="0"`, "t.xml:9"},
		"negative link width":   {`link_width="0"`, `link_width="-16"`, "t.xml:3"},
		"duplicate GPU dev":     {`<gpu dev="1"`, `<gpu dev="0"`, "t.xml:12"},
		"negative GPU dev":      {`<gpu dev="1"`, `<gpu dev="-1"`, "t.xml:12"},
	} {
		_, err := LoadSystem("t.xml", []byte(strings.Replace(x, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error at %s", name, err, c.want)
		}
	}
	if _, err := LoadSystem("t.xml", []byte(strings.Replace(x, `speed="10000"`, `speed="-1"`, 1))); err != nil {
		t.Errorf("speed -1 (what some NICs report; NCCL takes 10000): %v", err)
	}
}

// FuzzGraphFile runs the search with a graph XML in place of its own, as
// NCCL_GRAPH_FILE does: the panic at nchannels >= 65 was in the search, not
// the parser. Every graph file is used or refused, never a panic.
func FuzzGraphFile(f *testing.F) {
	graph, err := os.ReadFile(baselineDir + "graph.xml")
	if err != nil {
		f.Fatalf("committed capture missing: %v", err)
	}
	f.Add(graph)
	for _, n := range []string{"65", "64", "-12", "1000000", "2147483648"} {
		f.Add([]byte(strings.Replace(string(graph), `nchannels="12"`, `nchannels="`+n+`"`, 1)))
	}
	f.Add([]byte(`<graphs version="1"><graph id="0" pattern="4" crossnic="0" nchannels="2" speedintra="30" speedinter="30" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="1"><channel><gpu dev="0"/><gpu dev="0x1"/><gpu dev="0x1"/></channel></graph></graphs>`))
	f.Add([]byte(`<graphs version="1"><graph id="3" pattern="5" crossnic="1" nchannels="3" speedintra="-1" speedinter="1e40" typeintra="NVL" typeinter="SYS" samechannels="0"><channel><net dev="0x5"/><net dev="0"/><gpu dev="0"/></channel></graph></graphs>`))
	s := mustPreset(f, "h200x2")
	params := []Params{Params2_22_3(), Params2_28_9()}
	f.Fuzz(func(t *testing.T, data []byte) {
		gs, err := ParseGraphXML("fuzz.xml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.xml:") {
				t.Fatalf("error without file and line: %v", err)
			}
			return
		}
		for _, p := range params {
			o := DefaultOptions()
			o.NvlsEnable = 0
			o.GraphFile = gs
			if _, err := Search([]*System{s}, p, o); err != nil && !strings.Contains(err.Error(), "NCCL_GRAPH_FILE") && !strings.Contains(err.Error(), "fuzz.xml") {
				t.Fatalf("error without its source: %v", err)
			}
		}
	})
}
