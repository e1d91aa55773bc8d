// Command cmdword is a command.
package main

func main() {}
