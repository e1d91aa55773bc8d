package files

import (
	"errors"
	"io/fs"
)

// Bare is the error inside err when err is an *fs.PathError, whose
// message repeats the operation and the path that a message in toolhost's
// own words already gives; err otherwise.
func Bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
