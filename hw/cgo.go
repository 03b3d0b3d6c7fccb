//go:build cgo && linux

package hw

// This is the only file with `import "C"`; its C is in gs.c (compiled by
// cgo with this package) and gs.h. NCCL, the CUDA runtime and the CUDA
// driver are opened with dlopen and reached through function pointers
// probed with dlsym, so no CUDA or NCCL header or library is needed to
// build. gs.c declares the prototypes from the public API (nccl.h of
// v2.28.9-1, the CUDA runtime and driver API): handles are opaque pointers,
// enums are ints, ncclUniqueId is 128 bytes.

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "gs.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// cudaMemcpyKind values.
const (
	memcpyHostToDevice = 1
	memcpyDeviceToHost = 2
)

const maxLocal = C.GS_MAX_LOCAL

// loaded reports whether this process already opened the libraries: NCCL
// reads its environment once per process, and the C side keeps one set of
// function pointers.
var loaded struct {
	nccl, cudart, driver string
	driverErr            string
}

func cudaErr(op string, code C.int) error {
	if code == 0 {
		return nil
	}
	return &CUDAError{Op: op, Code: int(code), Name: C.GoString(C.gs_cuda_error_name(code))}
}

func cuErr(op string, code C.int) error {
	if code == 0 {
		return nil
	}
	return &CUDAError{Op: op, Code: int(code), Name: C.GoString(C.gs_cu_error_name(code))}
}

func ncclErr(op string, code C.int, comm C.gsHandle) error {
	if code == 0 {
		return nil
	}
	return &Error{Op: op, Result: Result(code), LastError: C.GoString(C.gs_nccl_last_error(comm))}
}

// failErr turns the C loop's failure report into a Go error.
func failErr(f *C.gsFail, comm C.gsHandle) error {
	call := C.GoString(f.call)
	switch f.kind {
	case 1:
		return ncclErr(call, f.code, comm)
	case 2:
		return cudaErr(call, f.code)
	case 3:
		return fmt.Errorf("hw: operation did not complete within the timeout (a hang or a dead peer)")
	}
	return nil
}

func openLibraries(s Search) error {
	if loaded.nccl != "" {
		return nil
	}
	var where [4096]C.char
	var tried []string
	var lastErr string
	for _, p := range s.CUDARTCandidates() {
		cp := C.CString(p)
		var cerr *C.char
		r := C.gs_open_cudart(cp, &cerr, &where[0], C.int(len(where)))
		C.free(unsafe.Pointer(cp))
		if r == 0 {
			loaded.cudart = C.GoString(&where[0])
			if loaded.cudart == "" {
				loaded.cudart = p
			}
			break
		}
		tried = append(tried, p)
		lastErr = C.GoString(cerr)
		if r == -2 {
			lastErr = p + " lacks " + lastErr
		}
	}
	if loaded.cudart == "" {
		return &UnavailableError{What: "CUDA runtime (libcudart)", Why: lastErr, Tried: tried}
	}
	var n C.int
	if r := C.gs_device_count(&n); r != 0 || n == 0 {
		why := "no CUDA device"
		if r != 0 {
			why = cudaErr("cudaGetDeviceCount", r).Error()
		}
		return &UnavailableError{What: "GPU", Why: why}
	}
	tried, lastErr = nil, ""
	for _, p := range s.NCCLCandidates() {
		cp := C.CString(p)
		var cerr *C.char
		r := C.gs_open_nccl(cp, &cerr, &where[0], C.int(len(where)))
		C.free(unsafe.Pointer(cp))
		if r == 0 {
			loaded.nccl = C.GoString(&where[0])
			if loaded.nccl == "" {
				loaded.nccl = p
			}
			break
		}
		tried = append(tried, p)
		lastErr = C.GoString(cerr)
		if r == -2 {
			lastErr = p + " lacks " + lastErr
		}
	}
	if loaded.nccl == "" {
		return &UnavailableError{What: "libnccl.so.2", Why: lastErr, Tried: tried}
	}
	var cerr *C.char
	if r := C.gs_open_driver(&cerr); r != 0 {
		loaded.driverErr = "libcuda.so.1: "
		if r < 0 {
			loaded.driverErr += C.GoString(cerr)
		} else {
			loaded.driverErr += cuErr("cuInit", r).Error()
		}
	} else {
		loaded.driver = "libcuda.so.1"
	}
	return nil
}

// Probe opens the libraries and reports what it found without creating a
// communicator: the library paths, NCCL's version, the CUDA versions and
// the GPUs.
func Probe(s Search, allowNVLS bool) (*ProbeResult, error) {
	ApplySafety(allowNVLS)
	if err := openLibraries(s); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := &ProbeResult{NCCL: loaded.nccl, CUDART: loaded.cudart, DriverNote: loaded.driverErr}
	var v C.int
	if r := C.gs_nccl_version(&v); r != 0 {
		return nil, ncclErr("ncclGetVersion", r, nil)
	}
	p.Version = spec.Version(v)
	p.Release, p.Modelled = spec.Nearest(p.Version)
	var dv, rv C.int
	C.gs_driver_version(&dv)
	C.gs_runtime_version(&rv)
	p.CUDADriver, p.CUDARuntime = int(dv), int(rv)
	var n C.int
	C.gs_device_count(&n)
	for d := 0; d < int(n); d++ {
		p.Devices = append(p.Devices, deviceInfo(d, d))
	}
	return p, nil
}

func deviceInfo(rank, dev int) conformance.DeviceInfo {
	di := conformance.DeviceInfo{Rank: rank, Dev: dev}
	var buf [256]C.char
	if C.gs_pci_bus_id(&buf[0], C.int(len(buf)), C.int(dev)) == 0 {
		di.BusID = C.GoString(&buf[0])
	}
	if loaded.driver != "" && C.gs_cu_device_name(&buf[0], C.int(len(buf)), C.int(dev)) == 0 {
		di.Name = C.GoString(&buf[0])
	}
	return di
}

// Session holds the local ranks of one process: streams, events, buffers,
// check kernels and communicators. It pins the goroutine that opened it to
// its OS thread (the current CUDA device and NCCL's group state are per
// thread); use it from that goroutine only, and Close it there.
type Session struct {
	opts    Options
	loc     *C.gsLocal
	devices []conformance.DeviceInfo
	nranks  int
	version spec.Version
	fill    []C.gsHandle
	check   []C.gsHandle
	wrong   []unsafe.Pointer
	scratch unsafe.Pointer
	host    bool // check on the host
	sendB   uint64
	recvB   uint64
	timeout float64
	kernels map[string][]C.gsHandle // LoadKernels: per name, one function per local rank
	// regs are ncclCommRegister handles (send, recv per local rank) and
	// wins ncclCommWindowRegister windows, released with the buffers.
	regs []unsafe.Pointer
	wins []unsafe.Pointer
}

// Open loads the libraries (once per process), picks the local GPUs and
// creates the communicator: ncclCommInitAll over every local GPU, or, under
// a launcher, ncclCommInitRank with the unique id exchanged as o.Launch
// says. Without a GPU, CUDA or NCCL it returns an error wrapping
// ErrUnavailable.
func Open(o Options) (*Session, error) {
	ApplySafety(o.AllowNVLS)
	if err := openLibraries(o.Search); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	s := &Session{opts: o, timeout: 600}
	if o.Timeout > 0 {
		s.timeout = o.Timeout.Seconds()
	}
	var v C.int
	C.gs_nccl_version(&v)
	s.version = spec.Version(v)
	var count C.int
	C.gs_device_count(&count)
	devs := o.Devices
	if o.Launch != nil {
		if len(devs) == 0 {
			devs = []int{o.Launch.LocalRank % int(count)}
		}
		if len(devs) != 1 {
			runtime.UnlockOSThread()
			return nil, fmt.Errorf("under a launcher each process drives one GPU; got devices %v", devs)
		}
		s.nranks = o.Launch.World
	} else {
		if len(devs) == 0 {
			for d := 0; d < int(count); d++ {
				devs = append(devs, d)
			}
		}
		s.nranks = len(devs)
	}
	if len(devs) > maxLocal {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("%d local GPUs: at most %d", len(devs), maxLocal)
	}
	for _, d := range devs {
		if d < 0 || d >= int(count) {
			runtime.UnlockOSThread()
			return nil, fmt.Errorf("GPU %d does not exist: this machine has %d", d, int(count))
		}
	}
	s.loc = (*C.gsLocal)(C.calloc(1, C.size_t(unsafe.Sizeof(C.gsLocal{}))))
	s.loc.n = C.int(len(devs))
	s.loc.nranks = C.int(s.nranks)
	if err := s.setup(devs); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.initComms(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) setup(devs []int) error {
	ptx := s.opts.PTX
	if ptx == nil {
		ptx = embeddedPTX()
	}
	s.host = s.opts.HostCheck || loaded.driver == "" || len(ptx) == 0
	var cptx *C.char
	if !s.host {
		cptx = C.CString(string(ptx))
		defer C.free(unsafe.Pointer(cptx))
	}
	for l, d := range devs {
		rank := l
		if s.opts.Launch != nil {
			rank = s.opts.Launch.Rank
		}
		s.loc.dev[l] = C.int(d)
		s.loc.rank[l] = C.int(rank)
		if err := cudaErr("cudaSetDevice", C.gs_set_device(C.int(d))); err != nil {
			return err
		}
		if err := cudaErr("cudaStreamCreateWithFlags", C.gs_stream_create(&s.loc.stream[l])); err != nil {
			return err
		}
		if err := cudaErr("cudaEventCreate", C.gs_event_create(&s.loc.ev0[l])); err != nil {
			return err
		}
		if err := cudaErr("cudaEventCreate", C.gs_event_create(&s.loc.ev1[l])); err != nil {
			return err
		}
		var p unsafe.Pointer
		if err := cudaErr("cudaMalloc", C.gs_malloc(&p, 16)); err != nil {
			return err
		}
		s.wrong = append(s.wrong, p)
		s.devices = append(s.devices, deviceInfo(rank, d))
		if !s.host {
			var mod, f1, f2 C.gsHandle
			if r := C.gs_module_load(&mod, unsafe.Pointer(cptx)); r != 0 {
				// A driver too old for the PTX: fall back to checking on the host.
				s.host = true
				continue
			}
			n1, n2 := C.CString("gs_fill"), C.CString("gs_check")
			r1 := C.gs_module_function(&f1, mod, n1)
			r2 := C.gs_module_function(&f2, mod, n2)
			C.free(unsafe.Pointer(n1))
			C.free(unsafe.Pointer(n2))
			if r1 != 0 || r2 != 0 {
				return fmt.Errorf("check kernels: gs_fill/gs_check not found in the PTX (%v, %v)", cuErr("cuModuleGetFunction", r1), cuErr("cuModuleGetFunction", r2))
			}
			s.fill = append(s.fill, f1)
			s.check = append(s.check, f2)
		}
	}
	if s.opts.Launch != nil && s.nranks > 1 {
		if err := cudaErr("cudaMalloc", C.gs_malloc(&s.scratch, 16)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) initComms() error {
	n := int(s.loc.n)
	if s.opts.Launch == nil {
		devs := make([]C.int, n)
		for l := range n {
			devs[l] = s.loc.dev[l]
		}
		return ncclErr("ncclCommInitAll", C.gs_comm_init_all(&s.loc.comm[0], C.int(n), &devs[0]), nil)
	}
	id := make([]byte, 128)
	if s.opts.Launch.Rank == 0 {
		if err := ncclErr("ncclGetUniqueId", C.gs_unique_id(unsafe.Pointer(&id[0])), nil); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(s.timeout*float64(time.Second)))
	defer cancel()
	got, err := s.opts.Launch.ExchangeID(ctx, id)
	if err != nil {
		return err
	}
	cid := C.CBytes(got)
	defer C.free(cid)
	if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[0])); err != nil {
		return err
	}
	return ncclErr("ncclCommInitRank", C.gs_comm_init_rank(&s.loc.comm[0], C.int(s.nranks), cid, C.int(s.opts.Launch.Rank)), nil)
}

// Version is the loaded library's ncclGetVersion.
func (s *Session) Version() spec.Version { return s.version }

// Libraries are the loaded libnccl and libcudart paths.
func (s *Session) Libraries() (nccl, cudart string) { return loaded.nccl, loaded.cudart }

func (s *Session) NRanks() int                     { return s.nranks }
func (s *Session) Local() []conformance.DeviceInfo { return s.devices }
func (s *Session) CheckMode() string {
	if s.host {
		return "host"
	}
	return "device"
}

// Close destroys the communicators and frees everything, then unpins the
// goroutine.
func (s *Session) Close() error {
	if s.loc == nil {
		return nil
	}
	// Registrations and windows belong to their communicator: release them
	// while it lives (after ncclCommDestroy the comm is gone and NCCL
	// answers ncclInvalidArgument).
	ferr := s.freeBuffers()
	for l := 0; l < int(s.loc.n); l++ {
		if s.loc.comm[l] != nil {
			C.gs_comm_destroy(s.loc.comm[l])
			s.loc.comm[l] = nil
		}
	}
	for l := 0; l < int(s.loc.n); l++ {
		C.gs_set_device(s.loc.dev[l])
		if l < len(s.wrong) {
			C.gs_free(s.wrong[l])
		}
		if s.loc.ev0[l] != nil {
			C.gs_event_destroy(s.loc.ev0[l])
		}
		if s.loc.ev1[l] != nil {
			C.gs_event_destroy(s.loc.ev1[l])
		}
		if s.loc.stream[l] != nil {
			C.gs_stream_destroy(s.loc.stream[l])
		}
	}
	if s.scratch != nil {
		C.gs_free(s.scratch)
	}
	C.free(unsafe.Pointer(s.loc))
	s.loc = nil
	runtime.UnlockOSThread()
	return ferr
}

// freeBuffers releases the buffers, deregistering them first; it returns
// the first deregistration NCCL refused and frees the memory regardless.
func (s *Session) freeBuffers() error {
	n := int(s.loc.n)
	var err error
	fail := func(op string, r C.int) {
		if r != 0 && err == nil {
			err = &Error{Op: op, Result: Result(r)}
		}
	}
	for i, h := range s.regs {
		if h != nil {
			fail("ncclCommDeregister", C.gs_comm_deregister(s.loc.comm[i/2], h))
		}
	}
	s.regs = nil
	if len(s.wins) > 0 {
		fail("ncclGroupStart", C.gs_group_start())
		for i, w := range s.wins {
			if w != nil {
				fail("ncclCommWindowDeregister", C.gs_window_deregister(s.loc.comm[i/2], w))
			}
		}
		fail("ncclGroupEnd", C.gs_group_end())
	}
	window := s.wins != nil
	s.wins = nil
	for l := 0; l < n; l++ {
		for _, p := range []**C.char{&s.loc.send[l], &s.loc.recv[l]} {
			if *p == nil {
				continue
			}
			if window {
				C.gs_nccl_mem_free(unsafe.Pointer(*p))
			} else {
				C.gs_free(unsafe.Pointer(*p))
			}
			*p = nil
		}
	}
	s.sendB, s.recvB = 0, 0
	return err
}

func (s *Session) Alloc(sendBytes, recvBytes uint64) error {
	if sendBytes <= s.sendB && recvBytes <= s.recvB {
		return nil
	}
	if err := s.freeBuffers(); err != nil {
		return err
	}
	window := s.opts.Buffers == spec.BuffersWindow
	if window && C.gs_has_windows() == 0 {
		return fmt.Errorf("window buffers: this NCCL has no ncclMemAlloc/ncclCommWindowRegister (2.27 and later)")
	}
	if s.opts.Buffers == spec.BuffersRegistered && C.gs_has_register() == 0 {
		return fmt.Errorf("registered buffers: this NCCL has no ncclCommRegister")
	}
	for l := 0; l < int(s.loc.n); l++ {
		if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[l])); err != nil {
			return err
		}
		for _, b := range []struct {
			p *(*C.char)
			n uint64
		}{{&s.loc.send[l], sendBytes}, {&s.loc.recv[l], recvBytes}} {
			var p unsafe.Pointer
			if window {
				// windows need NCCL's cuMem allocation
				if r := C.gs_nccl_mem_alloc(&p, C.size_t(b.n)); r != 0 {
					return &Error{Op: fmt.Sprintf("ncclMemAlloc(%d bytes)", b.n), Result: Result(r)}
				}
			} else if err := cudaErr(fmt.Sprintf("cudaMalloc(%d bytes)", b.n), C.gs_malloc(&p, C.size_t(b.n))); err != nil {
				return err
			}
			*b.p = (*C.char)(p)
		}
	}
	s.sendB, s.recvB = sendBytes, recvBytes
	switch s.opts.Buffers {
	case spec.BuffersRegistered:
		// ncclCommRegister: NCCL may then register the buffers over IPC
		// or with the network at each operation (NCCL_LOCAL_REGISTER).
		s.regs = make([]unsafe.Pointer, 2*int(s.loc.n))
		for l := 0; l < int(s.loc.n); l++ {
			for k, b := range []struct {
				p *C.char
				n uint64
			}{{s.loc.send[l], sendBytes}, {s.loc.recv[l], recvBytes}} {
				var h unsafe.Pointer
				if r := C.gs_comm_register(s.loc.comm[l], unsafe.Pointer(b.p), C.size_t(b.n), &h); r != 0 {
					return &Error{Op: "ncclCommRegister", Result: Result(r)}
				}
				s.regs[2*l+k] = h
			}
		}
	case spec.BuffersWindow:
		// ncclCommWindowRegister is collective: every local rank's call in
		// one group.
		s.wins = make([]unsafe.Pointer, 2*int(s.loc.n))
		if r := C.gs_group_start(); r != 0 {
			return &Error{Op: "ncclGroupStart", Result: Result(r)}
		}
		var first C.int
		for k := 0; k < 2; k++ {
			for l := 0; l < int(s.loc.n); l++ {
				p, n := s.loc.send[l], sendBytes
				if k == 1 {
					p, n = s.loc.recv[l], recvBytes
				}
				var w unsafe.Pointer
				if r := C.gs_window_register(s.loc.comm[l], unsafe.Pointer(p), C.size_t(n), &w); r != 0 && first == 0 {
					first = r
				}
				s.wins[2*l+k] = w
			}
		}
		if r := C.gs_group_end(); r != 0 && first == 0 {
			first = r
		}
		if first != 0 {
			return &Error{Op: "ncclCommWindowRegister", Result: Result(first)}
		}
	}
	return nil
}

func (s *Session) Fill(l int, dt spec.DataType, n uint64, f FillSpec, seed uint32) error {
	if n == 0 {
		return nil
	}
	if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[l])); err != nil {
		return err
	}
	if s.host {
		return s.hostFill(l, dt, n, f, seed)
	}
	prod := C.int(0)
	if f.Prod {
		prod = 1
	}
	return cuErr("cuLaunchKernel(gs_fill)", C.gs_launch_fill(s.fill[l], s.loc.stream[l], unsafe.Pointer(s.loc.send[l]),
		C.uint64_t(n), C.int(dt), C.int(f.Rank), C.uint64_t(f.Base), C.uint32_t(seed), prod))
}

func (s *Session) Poison(l int, bytes uint64) error {
	if bytes == 0 {
		return nil
	}
	if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[l])); err != nil {
		return err
	}
	if err := cudaErr("cudaMemsetAsync", C.gs_memset_async(unsafe.Pointer(s.loc.recv[l]), 0xA5, C.size_t(bytes), s.loc.stream[l])); err != nil {
		return err
	}
	return cudaErr("cudaStreamSynchronize", C.gs_stream_sync(s.loc.stream[l]))
}

func (s *Session) Check(l int, dt spec.DataType, n uint64, e Expect, seed uint32) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[l])); err != nil {
		return 0, err
	}
	if s.host {
		return s.hostCheck(l, dt, n, e, seed)
	}
	st := s.loc.stream[l]
	if err := cudaErr("cudaMemsetAsync", C.gs_memset_async(s.wrong[l], 0, 8, st)); err != nil {
		return 0, err
	}
	block := e.Block
	if block == 0 {
		block = 1
	}
	if err := cuErr("cuLaunchKernel(gs_check)", C.gs_launch_check(s.check[l], st, unsafe.Pointer(s.loc.recv[l]), C.uint64_t(n), C.int(dt),
		C.int(e.Mode), C.int(e.RedOp), C.int(e.NRanks), C.int(e.Src), C.uint64_t(e.Base), C.uint64_t(block), C.uint32_t(seed), s.wrong[l])); err != nil {
		return 0, err
	}
	if err := cudaErr("cudaStreamSynchronize", C.gs_stream_sync(st)); err != nil {
		return 0, err
	}
	var w uint64
	if err := cudaErr("cudaMemcpy", C.gs_memcpy(unsafe.Pointer(&w), s.wrong[l], 8, memcpyDeviceToHost)); err != nil {
		return 0, err
	}
	return int64(w), nil
}

// hostChunk bounds the host copies of the fallback check.
const hostChunk = 64 << 20

func (s *Session) hostFill(l int, dt spec.DataType, n uint64, f FillSpec, seed uint32) error {
	esz := uint64(dt.Size())
	uns := isUnsigned(dt)
	buf := make([]byte, min(n*esz, hostChunk))
	for start := uint64(0); start < n; {
		k := min(n-start, uint64(len(buf))/esz)
		for j := uint64(0); j < k; j++ {
			encode(dt, Value(seed, f.Rank, f.Base+start+j, f.Prod, uns), buf[j*esz:])
		}
		dst := unsafe.Add(unsafe.Pointer(s.loc.send[l]), start*esz)
		if err := cudaErr("cudaMemcpy", C.gs_memcpy(dst, unsafe.Pointer(&buf[0]), C.size_t(k*esz), memcpyHostToDevice)); err != nil {
			return err
		}
		start += k
	}
	return nil
}

func (s *Session) hostCheck(l int, dt spec.DataType, n uint64, e Expect, seed uint32) (int64, error) {
	esz := uint64(dt.Size())
	buf := make([]byte, min(n*esz, hostChunk))
	var wrong int64
	for start := uint64(0); start < n; {
		k := min(n-start, uint64(len(buf))/esz)
		src := unsafe.Add(unsafe.Pointer(s.loc.recv[l]), start*esz)
		if err := cudaErr("cudaMemcpy", C.gs_memcpy(unsafe.Pointer(&buf[0]), src, C.size_t(k*esz), memcpyDeviceToHost)); err != nil {
			return 0, err
		}
		wrong += checkHost(buf[:k*esz], dt, start, e, seed)
		start += k
	}
	return wrong, nil
}

func (s *Session) Run(op OpArgs, iters int, timed bool) ([]float64, error) {
	if op.Graph && C.gs_has_graphs() == 0 {
		return nil, fmt.Errorf("this CUDA runtime has no graph capture")
	}
	ms := make([]C.float, s.loc.n)
	var f C.gsFail
	b := func(v bool) C.int {
		if v {
			return 1
		}
		return 0
	}
	r := C.gs_run(s.loc, C.int(op.Func), C.size_t(op.Count), C.int(op.DataType), C.size_t(op.DataType.Size()), C.int(op.RedOp), C.int(op.Root),
		C.size_t(op.Stride), C.size_t(op.Steps), C.int(iters), C.int(max(1, op.Agg)), b(timed), b(op.Graph), C.double(s.timeout), &ms[0], &f)
	if r != 0 {
		return nil, failErr(&f, s.loc.comm[0])
	}
	out := make([]float64, len(ms))
	for i, v := range ms {
		out[i] = float64(v)
	}
	return out, nil
}

func (s *Session) Healthy() bool {
	for l := 0; l < int(s.loc.n); l++ {
		if r := C.gs_comm_async_error(s.loc.comm[l]); r != 0 && r != 7 {
			return false
		}
	}
	return true
}

func (s *Session) Reinit() error {
	if s.opts.Launch != nil {
		return fmt.Errorf("under a launcher a failed communicator cannot be recreated")
	}
	for l := 0; l < int(s.loc.n); l++ {
		if s.loc.comm[l] != nil {
			C.gs_comm_abort(s.loc.comm[l])
			s.loc.comm[l] = nil
		}
	}
	return s.initComms()
}

func (s *Session) SumInt64(v int64) (int64, error) {
	if s.scratch == nil {
		return v, nil
	}
	var f C.gsFail
	if r := C.gs_allreduce_small(s.loc, s.scratch, C.int(spec.Int64), C.int(spec.Sum), unsafe.Pointer(&v), &f); r != 0 {
		return 0, failErr(&f, s.loc.comm[0])
	}
	return v, nil
}

func (s *Session) MaxFloat64(v float64) (float64, error) {
	if s.scratch == nil {
		return v, nil
	}
	var f C.gsFail
	if r := C.gs_allreduce_small(s.loc, s.scratch, C.int(spec.Float64), C.int(spec.Max), unsafe.Pointer(&v), &f); r != 0 {
		return 0, failErr(&f, s.loc.comm[0])
	}
	return v, nil
}

func loadedAlready() bool { return loaded.nccl != "" }

func (s *Session) bufBase(l int, b BufID) unsafe.Pointer {
	if b == RecvBuf {
		return unsafe.Pointer(s.loc.recv[l])
	}
	return unsafe.Pointer(s.loc.send[l])
}

func (s *Session) bufSize(b BufID) uint64 {
	if b == RecvBuf {
		return s.recvB
	}
	return s.sendB
}

func (s *Session) checkRange(l int, b BufID, off, n uint64) error {
	if l < 0 || l >= int(s.loc.n) {
		return fmt.Errorf("local rank %d: this process drives %d", l, int(s.loc.n))
	}
	if b != SendBuf && b != RecvBuf {
		return fmt.Errorf("unknown buffer %d", b)
	}
	if off+n > s.bufSize(b) || off+n < off {
		return fmt.Errorf("bytes %d..%d outside the %d-byte %s buffer (Alloc first)", off, off+n, s.bufSize(b), b)
	}
	return nil
}

func (s *Session) Upload(l int, b BufID, off uint64, data []byte) error {
	if err := s.checkRange(l, b, off, uint64(len(data))); err != nil || len(data) == 0 {
		return err
	}
	if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[l])); err != nil {
		return err
	}
	return cudaErr("cudaMemcpy", C.gs_memcpy(unsafe.Add(s.bufBase(l, b), off), unsafe.Pointer(&data[0]), C.size_t(len(data)), memcpyHostToDevice))
}

func (s *Session) Download(l int, b BufID, off, n uint64) ([]byte, error) {
	if err := s.checkRange(l, b, off, n); err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[l])); err != nil {
		return nil, err
	}
	if err := cudaErr("cudaStreamSynchronize", C.gs_stream_sync(s.loc.stream[l])); err != nil {
		return nil, err
	}
	return out, cudaErr("cudaMemcpy", C.gs_memcpy(unsafe.Pointer(&out[0]), unsafe.Add(s.bufBase(l, b), off), C.size_t(n), memcpyDeviceToHost))
}

func (s *Session) DevicePtr(l int, b BufID, off uint64) uint64 {
	return uint64(uintptr(s.bufBase(l, b))) + off
}

func (s *Session) Exchange(ops []P2P) ([]float64, error) {
	n := len(ops)
	loc, peer, send, buf, dt := make([]C.int, n+1), make([]C.int, n+1), make([]C.int, n+1), make([]C.int, n+1), make([]C.int, n+1)
	off, cnt := make([]C.uint64_t, n+1), make([]C.uint64_t, n+1)
	for i, o := range ops {
		if err := s.checkRange(o.Local, o.Buf, o.Offset, o.Count*uint64(o.DataType.Size())); err != nil {
			return nil, fmt.Errorf("op %d: %w", i, err)
		}
		if o.Peer < 0 || o.Peer >= s.nranks {
			return nil, fmt.Errorf("op %d: peer %d out of range: %d ranks", i, o.Peer, s.nranks)
		}
		loc[i], peer[i], buf[i], dt[i] = C.int(o.Local), C.int(o.Peer), C.int(o.Buf), C.int(o.DataType)
		if o.Send {
			send[i] = 1
		}
		off[i], cnt[i] = C.uint64_t(o.Offset), C.uint64_t(o.Count)
	}
	ms := make([]C.float, s.loc.n)
	var f C.gsFail
	if r := C.gs_exchange(s.loc, C.int(n), &loc[0], &peer[0], &send[0], &buf[0], &off[0], &cnt[0], &dt[0], C.double(s.timeout), &ms[0], &f); r != 0 {
		return nil, failErr(&f, s.loc.comm[0])
	}
	out := make([]float64, len(ms))
	for i, v := range ms {
		out[i] = float64(v)
	}
	return out, nil
}

func (s *Session) LoadKernels(ptx []byte, names ...string) error {
	if loaded.driver == "" {
		return &UnavailableError{What: "CUDA driver API", Why: loaded.driverErr}
	}
	if len(ptx) == 0 {
		return fmt.Errorf("empty PTX")
	}
	cptx := C.CString(string(ptx))
	defer C.free(unsafe.Pointer(cptx))
	if s.kernels == nil {
		s.kernels = map[string][]C.gsHandle{}
	}
	fns := map[string][]C.gsHandle{}
	for l := 0; l < int(s.loc.n); l++ {
		if err := cudaErr("cudaSetDevice", C.gs_set_device(s.loc.dev[l])); err != nil {
			return err
		}
		var mod C.gsHandle
		if err := cuErr("cuModuleLoadData", C.gs_module_load(&mod, unsafe.Pointer(cptx))); err != nil {
			return err
		}
		for _, name := range names {
			cn := C.CString(name)
			var fn C.gsHandle
			r := C.gs_module_function(&fn, mod, cn)
			C.free(unsafe.Pointer(cn))
			if err := cuErr("cuModuleGetFunction("+name+")", r); err != nil {
				return err
			}
			fns[name] = append(fns[name], fn)
		}
	}
	for k, v := range fns {
		s.kernels[k] = v
	}
	return nil
}

func (s *Session) Launch(l int, name string, grid, block uint32, args ...uint64) (float64, error) {
	fns, ok := s.kernels[name]
	if !ok {
		return 0, fmt.Errorf("kernel %q is not loaded (LoadKernels first)", name)
	}
	if l < 0 || l >= len(fns) {
		return 0, fmt.Errorf("local rank %d: this process drives %d", l, len(fns))
	}
	words := make([]C.uint64_t, len(args)+1)
	for i, a := range args {
		words[i] = C.uint64_t(a)
	}
	var ms C.float
	var f C.gsFail
	if r := C.gs_launch_words(s.loc, C.int(l), fns[l], C.uint(grid), C.uint(block), &words[0], C.int(len(args)), C.double(s.timeout), &ms, &f); r != 0 {
		return 0, failErr(&f, s.loc.comm[0])
	}
	return float64(ms), nil
}
