package adapters

// NetworkCaller is a Backend whose calls go over the network (http).
// CallsNetwork reports that; when toolhost runs offline (serve
// --offline), such a tool answers from its examples' recorded responses
// unless the config says offline = "run". The calls of a backend that is
// not one are local (exec runs a command), and run offline too.
type NetworkCaller interface {
	CallsNetwork() bool
}
