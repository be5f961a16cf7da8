package leakcheck

import (
	"strings"
	"testing"
	"time"
)

func parkedHere(started chan<- struct{}, stop <-chan struct{}) {
	close(started)
	<-stop
}

func TestLeakedFindsRunningGoroutine(t *testing.T) {
	started, stop := make(chan struct{}), make(chan struct{})
	go parkedHere(started, stop)
	<-started
	if got := Leaked(50*time.Millisecond, "leakcheck.parkedHere"); !strings.Contains(got, "parkedHere") {
		t.Fatalf("a parked goroutine was not reported: %q", got)
	}
	close(stop)
	if got := Leaked(Grace, "leakcheck.parkedHere"); got != "" {
		t.Fatalf("a goroutine that returned is still reported:\n%s", got)
	}
}

func TestLeakedIgnoresOtherCode(t *testing.T) {
	if got := Leaked(0, "no/such/package."); got != "" {
		t.Fatalf("unexpected report:\n%s", got)
	}
}
