package host

import (
	"runtime"
	"time"
)

// holdBallast makes the GC ballast (see gcHeapFloor) ballastDelay from now,
// off the path of the first answers (its allocation starts a collection),
// and keeps it until release is called. Both front ends hold one while
// they serve: a stdio session (Server.Run) and the HTTP server (Serve),
// whose requests leave more of the SDK's decoder garbage than stdio's.
func holdBallast() (release func()) {
	stop := make(chan struct{})
	held := make(chan []byte, 1)
	go func() {
		var ballast []byte
		t := time.NewTimer(ballastDelay)
		select {
		case <-t.C:
			ballast = gcBallast()
		case <-stop:
			t.Stop()
		}
		held <- ballast
	}()
	return func() {
		close(stop)
		runtime.KeepAlive(<-held)
	}
}
