package config

import "time"

// catalogd's stop, at SIGTERM or Ctrl-C, has two steps. First the drain:
// /readyz fails while every request is still answered, for
// --shutdown-drain, so that the proxies and the Kubernetes Service stop
// sending to this replica before it stops listening. Then the stop: no new
// connection, and the requests in flight and the edge purges still waiting
// get ShutdownGrace. What kills a catalogd that takes too long must wait
// longer than both (the systemd unit's TimeoutStopSec, the Deployment's
// terminationGracePeriodSeconds; the deploy checks module reads these
// constants from this file's text and the deploy tests add them up). The
// drain's default covers a readiness probe's two failures 5 s apart (the
// Deployment's) and the seconds a removed endpoint takes to reach
// kube-proxy and the ingress: docs/operations.md argues it.
const (
	DefaultShutdownDrain = 10 * time.Second
	ShutdownGrace        = 15 * time.Second
)

// maxShutdownDrain bounds --shutdown-drain: a longer drain is a stop that
// looks hung, and outlasts every kill timeout.
const maxShutdownDrain = 5 * time.Minute
