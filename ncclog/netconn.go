package ncclog

import "strconv"

// maxNetConns bounds the network connection lines a Log keeps (each
// rank prints a few per channel; a log of many ranks is cut there).
const maxNetConns = 4096

// NetConnLine is one network connector line, "Channel %02d/%d : %d[%d] ->
// %d[%d] [send|receive] via NET/<net>/<suffix>": the sender's and the
// receiver's rank and device, the connector's side, and what sendSetup or
// recvSetup printed after the network's name (the device, a PXN proxy
// rank in parentheses, "/GDRDMA", "(PCI)", "/Shared"). Kind is the
// connections it belongs to, known from the line that follows it in the
// same process: "ring" before "Connected all rings", "tree" before
// "Connected all trees", "p2p" for a connection index other than 0; ""
// when the log does not say.
//
// Ref: v2.22.3-1, v2.26.2-1 src/transport/net.cc sendSetup, recvSetup;
// src/transport/generic.cc ncclTransportRingConnect, ncclTransportTreeConnect
type NetConnLine struct {
	Channel   int    `json:"channel"`
	ConnIndex int    `json:"conn_index"`
	From      int    `json:"from"`
	FromDev   int    `json:"from_dev"`
	To        int    `json:"to"`
	ToDev     int    `json:"to_dev"`
	Send      bool   `json:"send"`
	Net       string `json:"net"`
	Suffix    string `json:"suffix"`
	Kind      string `json:"kind,omitempty"`
	At        Loc    `json:"at"`
}

// Rank and Dev are the connecting rank (the sender of a send line, the
// receiver of a receive line) and its GPU; Peer and PeerDev the other end.
func (c *NetConnLine) Rank() int { return pick(c.Send, c.From, c.To) }
func (c *NetConnLine) Dev() int  { return pick(c.Send, c.FromDev, c.ToDev) }
func (c *NetConnLine) Peer() int { return pick(c.Send, c.To, c.From) }
func (c *NetConnLine) PeerDev() int {
	return pick(c.Send, c.ToDev, c.FromDev)
}

func pick(send bool, a, b int) int {
	if send {
		return a
	}
	return b
}

// RingConnLine is "Connected all rings, use ring PXN %d GDR %d" (2.24.3+):
// comm->useNetPXN and comm->useGdr after the ring connected.
type RingConnLine struct {
	PXN bool `json:"pxn"`
	GDR bool `json:"gdr"`
	At  Loc  `json:"at"`
}

// RankDev is a rank and its GPU as a connection line prints them.
type RankDev struct{ Rank, Dev int }

// addNetConn records a transport line's ranks, and a NET line itself.
func (p *Parser) addNetConn(sub []string, ln *Line) {
	if sub[1] != "Channel" {
		return
	}
	from, fromDev, to, toDev := atoi(sub[4]), devOf(sub[5]), atoi(sub[6]), devOf(sub[7])
	m := netViaRe.FindStringSubmatch(sub[9])
	if m == nil {
		// an intra-node connection: both ranks are on one node
		if fromDev >= 0 && toDev >= 0 && len(p.log.SameNode) < maxNetConns {
			p.log.SameNode = append(p.log.SameNode, [2]RankDev{{from, fromDev}, {to, toDev}})
		}
		return
	}
	if len(p.log.NetConns) >= maxNetConns || sub[8] == "" {
		return
	}
	c := NetConnLine{Channel: atoi(sub[2]), ConnIndex: atoi(sub[3]), From: from, FromDev: fromDev, To: to, ToDev: toDev,
		Send: sub[8] == "send", Net: m[1], Suffix: sub[9][len("NET/")+len(m[1])+1:], At: ln.Loc}
	if c.ConnIndex != 0 {
		c.Kind = "p2p"
	}
	p.log.NetConns = append(p.log.NetConns, c)
	p.connProcs = append(p.connProcs, procKey(ln))
}

// connected marks the process's NET lines not yet placed as the ring's or
// the tree's.
func (p *Parser) connected(kind string, ln *Line) {
	proc := procKey(ln)
	for i := len(p.log.NetConns) - 1; i >= 0; i-- {
		c := &p.log.NetConns[i]
		if p.connProcs[i] != proc || c.Kind == "p2p" {
			continue
		}
		if c.Kind != "" {
			break
		}
		c.Kind = kind
	}
}

// devOf reads a printed device: a number (2.18.3+), -1 for the bus id
// 2.18.1 prints.
func devOf(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
