// Toolhost serves tools, a command named after its directory.
package main

func main() {}
