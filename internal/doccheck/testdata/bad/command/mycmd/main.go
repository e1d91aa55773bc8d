// Serves is neither "Command", "Package main" nor the command's name.
package main

func main() {}
