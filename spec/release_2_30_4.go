package spec

// NCCL 2.30.4 (tag v2.30.4-1) as a delta against 2.30.3: GIN device API
// additions and NCCL_SYM_REUSE_SYSMEM_HANDLES; no gate, constant or
// host decision changes.

var release2_30_4 = Release{
	Version:   V2_30_4,
	Tag:       "v2.30.4-1",
	Unchanged: "GIN device API headers (src/include/nccl_device/gin.h) and NCCL_SYM_REUSE_SYSMEM_HANDLES (symmetric memory handles): no host decision reads them",
}
