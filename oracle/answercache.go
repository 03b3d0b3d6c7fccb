package oracle

import (
	"strconv"
)

// The answer cache: a conformance run asks the same question (release,
// machine, environment, operation) many times under different ids, and
// the answer to a request depends on nothing but its text and the
// oracle's settings (Trace, MaxRanks, MaxMemory). An answer is kept by
// the request's text with the id's value taken out (the fingerprint of
// what was asked), in a bounded LRU; a request with the same fingerprint
// gets the kept bytes with its own id, without being parsed, decided or
// encoded again. Requests whose answer can change between two asks (a
// system or graph file, whose contents may change; a tuner plugin; an
// answer refused by a budget) are never kept, and neither is an invalid
// request's answer.

// AnswerCacheSize is how many answers an oracle keeps (least recently
// used forgotten first). An entry is the request's text, the answer
// without its trace and the operation's verdicts (a few kilobytes); the
// communicator's init verdicts are shared with every answer on it.
const AnswerCacheSize = 16384

// maxKeptAnswer bounds one kept entry's own bytes (request and answer):
// larger ones (an inline system object) are answered afresh each time.
const maxKeptAnswer = 32 << 10

// keptAnswer is an answer without its id and trace.
type keptAnswer struct {
	// rest is the answer after `{"schema":N` (the id goes there), without
	// its closing brace.
	rest []byte
	// withTrace: the answer ends with "trace": initJSON (the
	// communicator's init verdicts, shared) and opJSON (this
	// operation's), either of which may be empty.
	withTrace        bool
	initJSON, opJSON []byte
	// settings are the oracle settings the answer was made under.
	settings answerSettings
}

// answerSettings are the oracle's settings an answer depends on.
type answerSettings struct {
	trace     bool
	maxRanks  int
	maxMemory int64
}

func (o *Oracle) answerSettings() answerSettings {
	return answerSettings{trace: o.Trace, maxRanks: o.MaxRanks, maxMemory: o.MaxMemory}
}

// schemaPrefix is how every encoded answer starts.
var schemaPrefix = []byte(`{"schema":` + strconv.Itoa(SchemaVersion))

// write appends the answer with id (the id's JSON, nil for none) as
// HandleLine writes it.
func (k *keptAnswer) write(id []byte) []byte {
	n := len(schemaPrefix) + len(k.rest) + len(k.initJSON) + len(k.opJSON) + 16
	if id != nil {
		n += len(`,"id":`) + len(id)
	}
	return assembleAnswer(make([]byte, 0, n), id, k.rest, k.withTrace, k.initJSON, k.opJSON)
}

// assembleAnswer writes an answer from its parts: the schema, the id (its
// JSON; nil for none), the rest of the fields, and the trace when there is
// one (as json.Marshal writes the slice: the init entries, then the
// operation's).
func assembleAnswer(b, id, rest []byte, withTrace bool, initJSON, opJSON []byte) []byte {
	b = append(b, schemaPrefix...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, rest...)
	if withTrace && (len(initJSON) > 0 || len(opJSON) > 0) {
		b = append(b, `,"trace":[`...)
		b = append(b, initJSON...)
		if len(initJSON) > 0 && len(opJSON) > 0 {
			b = append(b, ',')
		}
		b = append(b, opJSON...)
		b = append(b, ']')
	}
	return append(b, '}')
}

// requestFingerprint reads a request line's top level without decoding
// it: the line with its id's value taken out (the cache key) and the id's
// JSON as the answer writes it (nil when the request has no id). ok is
// false when the line is not the plain shape this reader accepts: one
// object with ASCII keys without escapes, at most one key that folds to
// "id" (spelled "id"), whose value is a JSON number or a string of
// printable ASCII without escapes or HTML-escaped characters (json.Marshal
// writes those as they are). Such lines take the decoder's path.
func requestFingerprint(line []byte) (key string, id []byte, ok bool) {
	s := jsonScan{b: line}
	s.ws()
	if !s.eat('{') {
		return "", nil, false
	}
	idStart, idEnd := -1, -1
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			k, good := s.key()
			if !good {
				return "", nil, false
			}
			s.ws()
			if !s.eat(':') {
				return "", nil, false
			}
			s.ws()
			isID := len(k) == 2 && (k[0]|0x20) == 'i' && (k[1]|0x20) == 'd'
			if isID {
				if string(k) != "id" || idStart >= 0 {
					return "", nil, false
				}
				idStart = s.i
				if !s.plainScalar() {
					return "", nil, false
				}
				idEnd = s.i
			} else if !s.value(0) {
				return "", nil, false
			}
			s.ws()
			if s.eat('}') {
				break
			}
			if !s.eat(',') {
				return "", nil, false
			}
		}
	}
	s.ws()
	if s.i != len(line) {
		return "", nil, false
	}
	if idStart < 0 {
		return string(line), nil, true
	}
	k := make([]byte, 0, len(line)-(idEnd-idStart))
	k = append(k, line[:idStart]...)
	k = append(k, line[idEnd:]...)
	return string(k), line[idStart:idEnd], true
}

// jsonScan walks JSON text just far enough to find the top level's
// members; it accepts what the decoder accepts and may refuse more.
type jsonScan struct {
	b []byte
	i int
}

// maxScanDepth bounds the nesting the scanner follows (the decoder's own
// limit is far above any request; deeper lines take the decoder's path).
const maxScanDepth = 64

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScan) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// key reads an object key of printable ASCII without escapes.
func (s *jsonScan) key() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// plainScalar reads a JSON number, or a string of printable ASCII that
// json.Marshal copies as it is (no escapes, no <, >, &).
func (s *jsonScan) plainScalar() bool {
	if s.i >= len(s.b) {
		return false
	}
	if s.b[s.i] == '"' {
		s.i++
		for s.i < len(s.b) {
			c := s.b[s.i]
			switch {
			case c == '"':
				s.i++
				return true
			case c == '\\' || c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&':
				return false
			}
			s.i++
		}
		return false
	}
	return s.number()
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *jsonScan) number() bool {
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.eat('.') && !s.digits() {
		return false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

func (s *jsonScan) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// value skips one JSON value.
func (s *jsonScan) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxScanDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.i++
		s.ws()
		if s.eat(end) {
			return true
		}
		for {
			s.ws()
			if c == '{' {
				if !s.str() {
					return false
				}
				s.ws()
				if !s.eat(':') {
					return false
				}
				s.ws()
			}
			if !s.value(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(end) {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return true
			}
		}
		return false
	}
}

// str skips a string, escapes included.
func (s *jsonScan) str() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			s.i += 2
		case c < 0x20:
			return false
		default:
			s.i++
		}
	}
	return false
}
