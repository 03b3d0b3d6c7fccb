//go:build !linux

package tuner

import "os"

// protocolOut is stdout where the descriptors cannot be rearranged.
func protocolOut() *os.File { return os.Stdout }
