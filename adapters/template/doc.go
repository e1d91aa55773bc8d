// Package template is the template backend: a tool whose call renders an
// HCL string expression from the call's arguments, with no I/O, within the
// limits of internal/evalcap (max_output, timeout).
package template
