// Package xtest is tested from outside, in package xtest_test.
package xtest_test
