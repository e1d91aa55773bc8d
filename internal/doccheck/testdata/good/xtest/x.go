// Package xtest has an external test package.
package xtest
