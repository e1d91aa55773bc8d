// Package testdoc says more in a test file.
package testdoc
