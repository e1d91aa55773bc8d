// Package twodocs has a package comment here.
package twodocs
