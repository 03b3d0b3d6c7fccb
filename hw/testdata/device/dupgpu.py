"""Two NCCL ranks on one GPU: what NCCL logs and returns (no collective is run).

Run on the one-GPU machine with the safety variables set:
    python3 dupgpu.py LIBNCCL OUTDIR
Each of the two rank processes calls ncclGetUniqueId/ncclCommInitRank(nranks=2) on CUDA device 0
through ctypes; a third case calls ncclCommInitAll with devlist {0, 0} in one process.
"""
import ctypes, glob, os, subprocess, sys, time

def cudart():
    for p in ["libcudart.so", "libcudart.so.13"] + sorted(glob.glob("/usr/local/cuda*/lib64/libcudart.so*")):
        try:
            return ctypes.CDLL(p)
        except OSError:
            pass
    raise SystemExit("no libcudart")

class UID(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]

def nccl(lib):
    n = ctypes.CDLL(lib)
    n.ncclGetErrorString.restype = ctypes.c_char_p
    n.ncclGetLastError.restype = ctypes.c_char_p
    n.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UID, ctypes.c_int]
    return n

def rank(lib, r, idfile):
    rt = cudart()
    assert rt.cudaSetDevice(0) == 0
    n = nccl(lib)
    v = ctypes.c_int()
    n.ncclGetVersion(ctypes.byref(v))
    uid = UID()
    if r == 0:
        assert n.ncclGetUniqueId(ctypes.byref(uid)) == 0
        with open(idfile + ".tmp", "wb") as f:
            f.write(ctypes.string_at(ctypes.addressof(uid), 128))
        os.rename(idfile + ".tmp", idfile)
    else:
        for _ in range(600):
            if os.path.exists(idfile):
                break
            time.sleep(0.05)
        # A c_char array assignment stops at the first NUL byte, so copy the raw 128 bytes.
        ctypes.memmove(ctypes.addressof(uid), open(idfile, "rb").read(), 128)
    comm = ctypes.c_void_p()
    rc = n.ncclCommInitRank(ctypes.byref(comm), 2, uid, r)
    print(f"RESULT version={v.value} rank={r} rc={rc} ({n.ncclGetErrorString(rc).decode()}) last={n.ncclGetLastError(None).decode()!r}", flush=True)

def initall(lib):
    rt = cudart()
    n = nccl(lib)
    comms = (ctypes.c_void_p * 2)()
    devs = (ctypes.c_int * 2)(0, 0)
    rc = n.ncclCommInitAll(comms, 2, devs)
    print(f"RESULT ncclCommInitAll devlist=0,0 rc={rc} ({n.ncclGetErrorString(rc).decode()}) last={n.ncclGetLastError(None).decode()!r}", flush=True)

if __name__ == "__main__":
    if sys.argv[1] == "--rank":
        rank(sys.argv[2], int(sys.argv[3]), sys.argv[4]); sys.exit(0)
    if sys.argv[1] == "--initall":
        initall(sys.argv[2]); sys.exit(0)
    lib, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    idfile = os.path.join(out, "uid.bin")
    procs = []
    for r in range(2):
        f = open(os.path.join(out, f"rank{r}.log"), "w")
        procs.append(subprocess.Popen([sys.executable, __file__, "--rank", lib, str(r), idfile], stdout=f, stderr=subprocess.STDOUT))
    for p in procs:
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
    os.remove(idfile)
    with open(os.path.join(out, "initall.log"), "w") as f:
        subprocess.run([sys.executable, __file__, "--initall", lib], stdout=f, stderr=subprocess.STDOUT, timeout=120)
