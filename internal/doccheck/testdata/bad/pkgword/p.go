// pkgword is not how a package comment starts.
package pkgword
