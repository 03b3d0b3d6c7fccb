package topo

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// XMLAttr is one attribute, kept in file order: NCCL writes attributes in
// the order it set them and reads them by name.
type XMLAttr struct {
	Key, Value string
}

// XMLNode is one element of NCCL's topology or graph XML (struct
// ncclXmlNode). Only the elements NCCL's loader has a handler for are kept;
// others are skipped with their subtree, as xmlLoadSub does, and listed in
// the document's Ignored.
type XMLNode struct {
	Name  string
	Attrs []XMLAttr
	Subs  []*XMLNode
	// Line is where the element starts in its file (0 when built in memory).
	Line   int
	parent *XMLNode
}

// XMLDoc is a parsed file: its root element and what was skipped.
type XMLDoc struct {
	File    string
	Root    *XMLNode
	Ignored []string // "file:line: <elem>" for elements NCCL ignores
}

// Attr returns an attribute's value.
func (n *XMLNode) Attr(key string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// SetAttr sets or appends an attribute (xmlSetAttr).
func (n *XMLNode) SetAttr(key, value string) {
	for i := range n.Attrs {
		if n.Attrs[i].Key == key {
			n.Attrs[i].Value = value
			return
		}
	}
	n.Attrs = append(n.Attrs, XMLAttr{key, value})
}

// Add appends a child element and returns it.
func (n *XMLNode) Add(name string, attrs ...XMLAttr) *XMLNode {
	c := &XMLNode{Name: name, Attrs: attrs, parent: n}
	n.Subs = append(n.Subs, c)
	return c
}

// Parent is the enclosing element, nil at the root.
func (n *XMLNode) Parent() *XMLNode { return n.parent }

// Sub returns the first child element with that name (xmlGetSub).
func (n *XMLNode) Sub(name string) *XMLNode {
	for _, s := range n.Subs {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Clone deep-copies the subtree.
func (n *XMLNode) Clone() *XMLNode {
	c := &XMLNode{Name: n.Name, Attrs: append([]XMLAttr(nil), n.Attrs...), Line: n.Line}
	for _, s := range n.Subs {
		cs := s.Clone()
		cs.parent = c
		c.Subs = append(c.Subs, cs)
	}
	return c
}

// NCCL's limits on names and values (v2.28.9-1 src/graph/xml.h MAX_STR_LEN,
// MAX_ATTR_COUNT): longer strings are an error, extra attributes are dropped.
const (
	xmlMaxStrLen   = 255
	xmlMaxAttrs    = 16
	xmlMaxDepth    = 256
	xmlTopoVersion = 1 // NCCL_TOPO_XML_VERSION
	xmlGraphVerion = 1 // NCCL_GRAPH_XML_VERSION
)

// xmlHandlers says which children each element keeps, as the handler tables
// of the loaders do (v2.28.9-1 src/graph/xml.cc ncclTopoXmlLoad*,
// ncclTopoXmlGraphLoad*). The empty key is the file level.
type xmlHandlers map[string][]string

var topoHandlers = xmlHandlers{
	"":       {"system"},
	"system": {"cpu"},
	"cpu":    {"pci", "nic"},
	"pci":    {"pci", "gpu", "nic", "pcilink"},
	"gpu":    {"nvlink", "c2c"},
	"nic":    {"net"},
}

var graphHandlers = xmlHandlers{
	"":        {"graphs"},
	"graphs":  {"graph"},
	"graph":   {"channel"},
	"channel": {"net", "gpu"},
}

func (h xmlHandlers) accepts(parent, child string) bool {
	for _, c := range h[parent] {
		if c == child {
			return true
		}
	}
	return false
}

type xmlParser struct {
	file string
	data []byte
	pos  int
	line int
	h    xmlHandlers
	doc  *XMLDoc
}

func (p *xmlParser) errf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *xmlParser) next() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\n' {
		p.line++
	}
	return c, true
}

func (p *xmlParser) peek() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	return p.data[p.pos], true
}

func (p *xmlParser) skipSpace() {
	for {
		c, ok := p.peek()
		if !ok || !isSpace(c) {
			return
		}
		p.next()
	}
}

// tag kinds
const (
	tagOpen = iota
	tagSingle
	tagClose
	tagEOF
)

type rawTag struct {
	kind  int
	name  string
	attrs []XMLAttr
	line  int
}

func (p *xmlParser) readName(what string, line int) (string, error) {
	start := p.pos
	for {
		c, ok := p.peek()
		if !ok {
			return "", p.errf(line, "unexpected end of file in %s: expected a name", what)
		}
		if isSpace(c) || c == '>' || c == '/' || c == '=' {
			break
		}
		if c == '<' || c == '"' || c == '\'' {
			return "", p.errf(p.line, "unexpected %q in %s: expected a name", c, what)
		}
		p.next()
	}
	name := string(p.data[start:p.pos])
	if name == "" {
		return "", p.errf(p.line, "empty name in %s", what)
	}
	if len(name) > xmlMaxStrLen {
		return "", p.errf(line, "name %.20q... too long: NCCL accepts at most %d characters", name, xmlMaxStrLen)
	}
	return name, nil
}

// readTag reads the next tag, skipping whitespace and comments.
func (p *xmlParser) readTag() (rawTag, error) {
	for {
		p.skipSpace()
		line := p.line
		c, ok := p.next()
		if !ok {
			return rawTag{kind: tagEOF, line: line}, nil
		}
		if c != '<' {
			return rawTag{}, p.errf(line, "unexpected text %q: expected '<' (NCCL's XML has elements only)", c)
		}
		if bytes.HasPrefix(p.data[p.pos:], []byte("!--")) {
			end := bytes.Index(p.data[p.pos+3:], []byte("-->"))
			if end < 0 {
				return rawTag{}, p.errf(line, "unterminated comment: expected -->")
			}
			for i := 0; i < end+6; i++ {
				p.next()
			}
			continue
		}
		if nc, ok := p.peek(); ok && (nc == '?' || nc == '!') {
			return rawTag{}, p.errf(line, "<%c...> declarations are not accepted by NCCL's XML parser: remove them", nc)
		}
		if nc, ok := p.peek(); ok && nc == '/' {
			p.next()
			name, err := p.readName("closing tag", line)
			if err != nil {
				return rawTag{}, err
			}
			p.skipSpace()
			if c, ok := p.next(); !ok || c != '>' {
				return rawTag{}, p.errf(line, "closing tag </%s: expected '>'", name)
			}
			return rawTag{kind: tagClose, name: name, line: line}, nil
		}
		name, err := p.readName("element", line)
		if err != nil {
			return rawTag{}, err
		}
		t := rawTag{kind: tagOpen, name: name, line: line}
		for {
			p.skipSpace()
			c, ok := p.peek()
			if !ok {
				return rawTag{}, p.errf(line, "unterminated <%s>: expected '>'", name)
			}
			if c == '>' {
				p.next()
				return t, nil
			}
			if c == '/' {
				p.next()
				if c, ok := p.next(); !ok || c != '>' {
					return rawTag{}, p.errf(p.line, "<%s .../: expected '>' after '/'", name)
				}
				t.kind = tagSingle
				return t, nil
			}
			key, err := p.readName("attribute of <"+name+">", line)
			if err != nil {
				return rawTag{}, err
			}
			p.skipSpace()
			if c, ok := p.next(); !ok || c != '=' {
				return rawTag{}, p.errf(p.line, "<%s> attribute %s: expected '=' and a quoted value", name, key)
			}
			p.skipSpace()
			q, ok := p.next()
			if !ok || (q != '"' && q != '\'') {
				return rawTag{}, p.errf(p.line, "<%s> attribute %s: expected a quoted value", name, key)
			}
			start := p.pos
			for {
				c, ok := p.next()
				if !ok {
					return rawTag{}, p.errf(line, "<%s> attribute %s: unterminated value, expected closing %c", name, key, q)
				}
				if c == q {
					break
				}
			}
			val := string(p.data[start : p.pos-1])
			if len(val) > xmlMaxStrLen {
				return rawTag{}, p.errf(line, "<%s> attribute %s: value too long: NCCL accepts at most %d characters", name, key, xmlMaxStrLen)
			}
			// NCCL keeps the first MAX_ATTR_COUNT attributes and drops the rest
			// (xmlGetNode "Ignoring extra attributes").
			if len(t.attrs) < xmlMaxAttrs {
				t.attrs = append(t.attrs, XMLAttr{key, val})
			}
		}
	}
}

// load reads the children of head (nil at file level) until its closing tag.
func (p *xmlParser) load(head *XMLNode, depth int, keep bool) ([]*XMLNode, error) {
	if depth > xmlMaxDepth {
		return nil, p.errf(p.line, "elements nested deeper than %d", xmlMaxDepth)
	}
	var out []*XMLNode
	headName := ""
	if head != nil {
		headName = head.Name
	}
	for {
		t, err := p.readTag()
		if err != nil {
			return nil, err
		}
		switch t.kind {
		case tagEOF:
			if head != nil {
				return nil, p.errf(head.Line, "<%s> is never closed: expected </%s>", head.Name, head.Name)
			}
			return out, nil
		case tagClose:
			if head == nil {
				return nil, p.errf(t.line, "closing tag </%s> without an opening tag", t.name)
			}
			if t.name != head.Name {
				return nil, p.errf(t.line, "</%s> closes <%s> opened at line %d: expected </%s>", t.name, head.Name, head.Line, head.Name)
			}
			return out, nil
		}
		n := &XMLNode{Name: t.name, Attrs: t.attrs, Line: t.line, parent: head}
		accepted := keep && p.h.accepts(headName, t.name)
		if !accepted && keep {
			p.doc.Ignored = append(p.doc.Ignored, fmt.Sprintf("%s:%d: <%s>", p.file, t.line, t.name))
		}
		if t.kind == tagOpen {
			subs, err := p.load(n, depth+1, accepted)
			if err != nil {
				return nil, err
			}
			n.Subs = subs
		}
		if accepted {
			out = append(out, n)
		}
	}
}

func parseXML(name string, data []byte, h xmlHandlers, root string, version int) (*XMLDoc, error) {
	p := &xmlParser{file: name, data: data, line: 1, h: h, doc: &XMLDoc{File: name}}
	top, err := p.load(nil, 0, true)
	if err != nil {
		return nil, err
	}
	if len(top) == 0 {
		return nil, fmt.Errorf("%s:%d: no <%s> element: expected the file to start with <%s version=\"%d\">", name, p.line, root, root, version)
	}
	if len(top) > 1 {
		return nil, fmt.Errorf("%s:%d: second <%s> element: NCCL reads only the first, expected one", name, top[1].Line, root)
	}
	r := top[0]
	v, ok := r.Attr("version")
	if !ok {
		return nil, fmt.Errorf("%s:%d: <%s> without version attribute: expected version=\"%d\"", name, r.Line, root, version)
	}
	if n, err := parseCInt(v); err != nil || n != int64(version) {
		return nil, fmt.Errorf("%s:%d: <%s version=%q>: NCCL needs version=\"%d\"", name, r.Line, root, v, version)
	}
	p.doc.Root = r
	return p.doc, nil
}

// ParseTopologyXML reads NCCL's topology XML (what NCCL_TOPO_DUMP_FILE writes
// and NCCL_TOPO_FILE reads) and returns the <system> element. Elements that
// NCCL's loader ignores are dropped with their subtree (v2.28.9-1
// src/graph/xml.cc ncclTopoGetXmlFromFile). BuildSystem turns the tree into a
// System.
func ParseTopologyXML(name string, data []byte) (*XMLNode, error) {
	d, err := ParseTopologyDoc(name, data)
	if err != nil {
		return nil, err
	}
	return d.Root, nil
}

// ParseTopologyDoc is ParseTopologyXML with the list of ignored elements.
func ParseTopologyDoc(name string, data []byte) (*XMLDoc, error) {
	return parseXML(name, data, topoHandlers, "system", xmlTopoVersion)
}

// WriteXML prints the element as NCCL's ncclTopoDumpXmlRec does: two spaces
// of indent per level, attributes in order, "/>" for elements without
// children.
func (n *XMLNode) WriteXML(w io.Writer) error {
	var b strings.Builder
	n.writeRec(&b, 0)
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the XML text of the subtree.
func (n *XMLNode) String() string {
	var b strings.Builder
	n.writeRec(&b, 0)
	return b.String()
}

func (n *XMLNode) writeRec(b *strings.Builder, indent int) {
	b.WriteString(strings.Repeat(" ", indent))
	b.WriteByte('<')
	b.WriteString(n.Name)
	for _, a := range n.Attrs {
		// NCCL always writes double quotes; a value read from single
		// quotes may hold a double quote and keeps its single quotes.
		q := byte('"')
		if strings.IndexByte(a.Value, '"') >= 0 {
			q = '\''
		}
		b.WriteByte(' ')
		b.WriteString(a.Key)
		b.WriteByte('=')
		b.WriteByte(q)
		b.WriteString(a.Value)
		b.WriteByte(q)
	}
	if len(n.Subs) == 0 {
		b.WriteString("/>\n")
		return
	}
	b.WriteString(">\n")
	for _, s := range n.Subs {
		s.writeRec(b, indent+2)
	}
	b.WriteString(strings.Repeat(" ", indent))
	b.WriteString("</")
	b.WriteString(n.Name)
	b.WriteString(">\n")
}

// WriteXML prints the system as NCCL-format topology XML: the tree it was
// built from, so NCCL_TOPO_FILE reads the same machine back.
func (s *System) WriteXML(w io.Writer) error {
	if s == nil || s.Source == nil {
		return fmt.Errorf("system %q has no XML source to write", s.name())
	}
	return s.Source.WriteXML(w)
}

func (s *System) name() string {
	if s == nil {
		return ""
	}
	return s.Name
}
