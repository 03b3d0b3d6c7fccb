//go:build cgo

package tuner

// #cgo LDFLAGS: -ldl
// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unsafe"
)

// Serve is the child's side: it answers requests on in until EOF. It is
// what `gatesim __tuner-child` runs; a tuner that crashes or hangs takes
// only this process down.
func Serve(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), maxLine)
	w := bufio.NewWriter(out)
	s := &childState{}
	for sc.Scan() {
		var req request
		var resp response
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			resp.Err = "bad request: " + err.Error()
		} else {
			resp = s.handle(req)
		}
		resp.Log = append(resp.Log, takeLog()...)
		b, err := json.Marshal(resp)
		if err != nil {
			b = []byte(fmt.Sprintf(`{"err":%q}`, err.Error()))
		}
		w.Write(b)
		w.WriteByte('\n')
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

type childState struct {
	lib  unsafe.Pointer
	sym  unsafe.Pointer
	abi  int
	ctx  *unsafe.Pointer // C memory holding the tuner's context
	init bool
}

func takeLog() []string {
	buf := make([]byte, 64*1024)
	n := int(C.gs_log_take((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf))))
	if n == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(buf[:n]), "\n"), "\n")
}

func (s *childState) handle(req request) response {
	var r response
	switch req.Cmd {
	case "open":
		if s.lib != nil {
			r.Err = "a library is already open"
			return r
		}
		cpath := C.CString(req.Path)
		defer C.free(unsafe.Pointer(cpath))
		var errbuf [512]C.char
		lib := C.gs_open(cpath, &errbuf[0], C.int(len(errbuf)))
		if lib == nil {
			r.Err = C.GoString(&errbuf[0])
			return r
		}
		s.lib = lib
		r.Names = map[int]string{}
		for v := minABI; v <= maxABI; v++ {
			if sym := C.gs_symbol(lib, C.int(v)); sym != nil {
				r.Symbols = append(r.Symbols, v)
				r.Names[v] = C.GoString(C.gs_name(sym))
			}
		}
	case "init":
		if s.lib == nil || req.ABI < minABI || req.ABI > maxABI {
			r.Err = "init before open, or an ABI outside 2..6"
			return r
		}
		sym := C.gs_symbol(s.lib, C.int(req.ABI))
		if sym == nil {
			r.Err = fmt.Sprintf("no ncclTunerPlugin_v%d symbol", req.ABI)
			return r
		}
		s.sym, s.abi = sym, req.ABI
		if len(req.Constants) > maxConstants {
			r.Err = fmt.Sprintf("%d constants: at most %d", len(req.Constants), maxConstants)
			return r
		}
		n := int(C.gs_num_constants())
		consts := (*C.double)(C.calloc(C.size_t(n), 8))
		defer C.free(unsafe.Pointer(consts))
		cs := unsafe.Slice((*uint64)(unsafe.Pointer(consts)), n)
		copy(cs, req.Constants)
		nvl := (*C.int)(C.calloc(3, C.size_t(unsafe.Sizeof(C.int(0)))))
		defer C.free(unsafe.Pointer(nvl))
		ns := unsafe.Slice(nvl, 3)
		for i := range ns {
			ns[i] = C.int(req.NVL[i])
		}
		if s.ctx == nil {
			s.ctx = (*unsafe.Pointer)(C.calloc(1, C.size_t(unsafe.Sizeof(uintptr(0)))))
		}
		ctx := s.ctx
		r.Result = int(C.gs_init(sym, C.int(req.ABI), C.size_t(req.NRanks), C.size_t(req.NNodes), C.uint64_t(req.CommID), nvl, consts, ctx))
		s.init = true
		r.HasChunk = C.gs_has_chunk(sym, C.int(req.ABI)) != 0
		if req.ABI >= 5 {
			r.Constants = append([]uint64(nil), cs...)
		}
	case "coll":
		if !s.init {
			r.Err = "getCollInfo before init"
			return r
		}
		n := req.NumAlgo * req.NumProto
		if n <= 0 || n > maxTable || len(req.Table) != n {
			r.Err = fmt.Sprintf("cost table of %d cells for %d×%d", len(req.Table), req.NumAlgo, req.NumProto)
			return r
		}
		tab := (*C.float)(C.calloc(C.size_t(n), 4))
		defer C.free(unsafe.Pointer(tab))
		ts := unsafe.Slice((*uint32)(unsafe.Pointer(tab)), n)
		copy(ts, req.Table)
		out := (*C.int)(C.calloc(3, C.size_t(unsafe.Sizeof(C.int(0)))))
		defer C.free(unsafe.Pointer(out))
		os := unsafe.Slice(out, 3)
		os[0], os[1], os[2] = -1, -1, 0 // NCCL_ALGO_UNDEF, NCCL_PROTO_UNDEF, nMaxChannels 0
		r.Result = int(C.gs_coll(s.sym, C.int(s.abi), s.ctx, C.int(req.Func), C.size_t(req.NBytes), C.int(req.NumPipeOps),
			tab, C.int(req.NumAlgo), C.int(req.NumProto), C.int(req.RegBuff), C.int(req.CollNetSupport), C.int(req.NVLSSupport),
			&os[0], &os[1], &os[2]))
		r.Table = append([]uint32(nil), ts...)
		r.Algo, r.Proto, r.NChannels = int(os[0]), int(os[1]), int(os[2])
	case "chunk":
		if !s.init || C.gs_has_chunk(s.sym, C.int(s.abi)) == 0 {
			r.Err = "getChunkSize before init, or the tuner has none"
			return r
		}
		cs := (*C.size_t)(C.calloc(1, C.size_t(unsafe.Sizeof(C.size_t(0)))))
		defer C.free(unsafe.Pointer(cs))
		*cs = C.size_t(req.ChunkSize)
		r.Result = int(C.gs_chunk(s.sym, C.int(s.abi), s.ctx, C.int(req.Func), C.size_t(req.NBytes), C.int(req.Algo),
			C.int(req.Proto), C.int(req.NChannels), cs))
		r.ChunkSize = uint64(*cs)
	case "finalize":
		if !s.init {
			r.Err = "finalize before init"
			return r
		}
		r.Result = int(C.gs_finalize(s.sym, C.int(s.abi), s.ctx))
		s.init = false
	default:
		r.Err = "unknown command " + req.Cmd
	}
	return r
}
