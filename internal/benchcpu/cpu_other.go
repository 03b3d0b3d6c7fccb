//go:build !unix

package benchcpu

func cpuNanos() int64 { return 0 }
