// Package testdoc has its package comment here.
package testdoc
