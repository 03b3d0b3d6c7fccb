package spec

import (
	"fmt"
)

// ibPlaneState is what ncclIbInitDevices found of the ports' plane ids
// (NCCL_IB_HCA's name:port:rail:plane items): the ids in port order, the
// plane index of each port before the first refused one (bad, -1: none)
// and its WARN. ran: the IB's init listed the ports.
type ibPlaneState struct {
	ids  []int
	idx  []int
	bad  int
	warn string
	ran  bool
}

// ibPlaneRule is G-NET-IB-PLANE-1: ncclIbInitDevices gives each port's
// plane id an index (the undefined plane is index 0), refusing a 13th user
// plane id and any id other than -1 with bit 14 (NCCL_IB_PLANE_VIRT_BIT)
// set; a refusal fails the IB's init with ncclInvalidUsage, so the
// network falls back to Socket. The ports indexed before it have already
// been made virtual devices, and the IB keeps its port list, so a GIN or
// RMA init that calls ncclIbInitDevices later finds it done (netRefCount
// was counted before the failure) and sees every port.
//
// Ref: v2.30.7-1 src/transport/net_ib/init.cc ncclIbGetPlaneIndex,
// ncclIbInitDevices; src/plugin/net.cc ncclNetPluginInit
func ibPlaneRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-NET-IB-PLANE-1", Layer: LayerDevice, Cap: CapIB, Title: "IB plane ids (NCCL_IB_HCA name:port:rail:plane)",
		Doc: `ncclIbInitDevices, after listing the ports, gives each port's plane id (the fourth field of its NCCL_IB_HCA item; -1 when none) an index in port order: -1 is index 0, each new id the next. A 13th user plane id WARNs "NCCL cannot use more than 14 plane IDs." and an id other than -1 with bit 14 (16384, NCCL_IB_PLANE_VIRT_BIT) set, so any other negative id, WARNs "NCCL cannot use a plane ID that is %d."; either fails the IB's init with ncclInvalidUsage ("Failed to initialize NET plugin IB"), the network falls back to Socket, and the ports before the refused one have printed their "Made virtual device" lines. The IB's port list stays, so the GIN and RMA inits that call ncclIbInitDevices later find it done and see every port. The indexes set the plane bits of a fused device.`,
		Ref: ref, node: true,
		Logs: []string{"NCCL cannot use more than %d plane IDs.", "NCCL cannot use a plane ID that is %d."},
		init: func(r *initRun) {
			p := r.cur.ibPlane
			if !p.ran {
				r.emit(Verdict{Outcome: Skip, Why: "the IB's init did not list its ports"})
				return
			}
			named := 0
			for _, id := range p.ids {
				if id != -1 {
					named++
				}
			}
			facts := []Fact{F("plane_ids", fmt.Sprint(p.ids))}
			if p.bad >= 0 {
				facts = append(facts, F("refused_port", p.bad))
				r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("port %d's plane id: %s ncclIbInitDevices fails with ncclInvalidUsage (G-NET-IB-1 prints it); the network falls back", p.bad, p.warn), Facts: facts})
				return
			}
			if named == 0 {
				r.emit(Verdict{Outcome: Skip, Why: "no NCCL_IB_HCA item names a plane"})
				return
			}
			facts = append(facts, F("plane_indexes", fmt.Sprint(p.idx)))
			r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("%d port(s) name a plane; indexes %v", named, p.idx), Facts: facts})
		},
	}
}
