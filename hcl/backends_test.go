package hcl

// The tests load configs with tools of every backend.
import _ "github.com/toolhost/toolhost/adapters/all"
