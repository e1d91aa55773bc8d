// Package generated has a generated file besides this one.
package generated
