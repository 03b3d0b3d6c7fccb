package tuner

import (
	"os"
	"syscall"
)

// protocolOut keeps the protocol on a private copy of stdout and points
// file descriptor 1 at stderr, so that a plugin that prints (printf,
// std::cout) cannot corrupt the answers.
func protocolOut() *os.File {
	fd, err := syscall.Dup(1)
	if err != nil {
		return os.Stdout
	}
	if err := syscall.Dup3(2, 1, 0); err != nil {
		syscall.Close(fd)
		return os.Stdout
	}
	return os.NewFile(uintptr(fd), "tuner-protocol")
}
