// Package main is a command too.
package main

func main() {}
