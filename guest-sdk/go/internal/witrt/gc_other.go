//go:build !wasip1

package witrt

// CallStarted has nothing to do outside a component.
func CallStarted() {}

// CallEnded has nothing to do outside a component.
func CallEnded() {}
