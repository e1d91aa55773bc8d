// Package twodocs has another here.
package twodocs
