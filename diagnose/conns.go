package diagnose

import (
	"fmt"
	"slices"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// ConnRow compares one network connector line: what follows "via
// NET/<network>/" (the device, a PXN proxy rank in parentheses, "/GDRDMA",
// "(PCI)", "/Shared"; the network's name is the capability rows'), or the
// "use ring PXN %d GDR %d" of "Connected all rings" (2.24.3+). The rules
// are G-NET-CONN-PXN-1 (the NET and the proxy), G-NET-CONN-GDR-1 and
// G-NET-CONN-SHARED-1. Flush is a predicted receive's flush of what the
// NIC wrote (G-NET-CONN-FLUSH-1: "none", "iflush", "iflush(C2C)", with
// " no-op" where the network's iflush posts nothing; "-" for a send or a
// receive without GDR): no NCCL line prints it, so it is not compared.
type ConnRow struct {
	Conn      string    `json:"conn"`
	Kind      string    `json:"kind"`
	Predicted string    `json:"predicted"`
	Observed  string    `json:"observed"`
	Agreement Agreement `json:"agreement"`
	Flush     string    `json:"flush,omitempty"`
	At        string    `json:"at,omitempty"`
}

// PredictConns predicts every network connector line of l on comm's
// machine, and the ring's PXN and GDR flags where the log prints them.
// The connector is the logged rank's own, on the node gatesim numbers it
// on (its GPU by the logged device); a line the log does not place after
// "Connected all rings" or "Connected all trees" with connection index 0
// is taken as the ring's. A proxy is named by the rank the log's
// intra-node lines place on its GPU, else by gatesim's numbering. Where
// the model builds no communicator (NCCL's error, a plugin the machine
// lacks) every line is "not predicted".
func PredictConns(comm *spec.Comm, l *ncclog.Log) []ConnRow {
	var rows []ConnRow
	if comm == nil || comm.Topo == nil || len(comm.Topo.Nodes) == 0 {
		for i := range l.NetConns {
			c := &l.NetConns[i]
			rows = append(rows, ConnRow{Conn: connName(c), Kind: c.Kind, Predicted: "-", Observed: c.Suffix, Agreement: NotPredicted, At: c.At.String()})
		}
		return rows
	}
	r := comm.Topo
	for i := range l.NetConns {
		c := &l.NetConns[i]
		kind := topo.ConnRing
		switch c.Kind {
		case "tree":
			kind = topo.ConnTree
		case "p2p":
			kind = topo.ConnP2P
		}
		row := ConnRow{Conn: connName(c), Kind: kind.String(), Observed: c.Suffix, At: c.At.String()}
		node := nodeOfRank(r, c.Rank())
		conn, err := node.NetConn(topo.ConnQuery{Kind: kind, Channel: c.Channel, ConnIndex: c.ConnIndex, Send: c.Send, Dev: c.Dev(), PeerDev: c.PeerDev()})
		if err != nil {
			row.Predicted = "error: " + err.Error()
		} else {
			row.Predicted = conn.Suffix(proxyRank(l, node, c.Rank(), conn.ProxyDev))
			row.Flush = conn.FlushText(c.Send)
		}
		rows = append(rows, row.agree())
	}
	if rc := l.RingConn; rc != nil {
		rows = append(rows, ConnRow{Conn: "Connected all rings", Kind: "ring",
			Predicted: ringFlags(r.RingNetPXN, r.RingUseGdr()), Observed: ringFlags(rc.PXN, rc.GDR), At: rc.At.String()}.agree())
	}
	return rows
}

// connName is a connector line up to "via".
func connName(c *ncclog.NetConnLine) string {
	dir := "receive"
	if c.Send {
		dir = "send"
	}
	return fmt.Sprintf("Channel %02d/%d : %d[%d] -> %d[%d] [%s]", c.Channel, c.ConnIndex, c.From, c.FromDev, c.To, c.ToDev, dir)
}

func (r ConnRow) agree() ConnRow {
	r.Agreement = Agree
	if r.Predicted != r.Observed {
		r.Agreement = Differ
	}
	return r
}

func ringFlags(pxn, gdr bool) string {
	return fmt.Sprintf("use ring PXN %d GDR %d", btoi(pxn), btoi(gdr))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nodeOfRank is the node gatesim numbers rank on (the first when none).
func nodeOfRank(r *topo.Result, rank int) *topo.NodeResult {
	for i := range r.Nodes {
		if slices.Contains(r.Nodes[i].Ranks, rank) {
			return &r.Nodes[i]
		}
	}
	return &r.Nodes[0]
}

// proxyRank names the rank on dev beside rank: from the log's intra-node
// connection lines, else gatesim's numbering of the node.
func proxyRank(l *ncclog.Log, node *topo.NodeResult, rank, dev int) int {
	for _, p := range l.SameNode {
		for k := range 2 {
			if p[k].Rank == rank && p[1-k].Dev == dev {
				return p[1-k].Rank
			}
		}
	}
	pr, _ := node.RankOfDev(dev)
	return pr
}
