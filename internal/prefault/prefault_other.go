//go:build !linux

package prefault

import "errors"

// Populate does nothing outside Linux: there is no MADV_POPULATE_WRITE.
func Populate(addr uintptr, n int) (int, error) {
	return 0, errors.ErrUnsupported
}
