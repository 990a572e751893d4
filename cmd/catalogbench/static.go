package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The static server the cached throughput is compared with, and the loaders that drive both.

type bytesServer struct {
	srv *http.Server
	l   net.Listener
}

func (b *bytesServer) URL() string { return "http://" + b.l.Addr().String() + "/" }
func (b *bytesServer) Close()      { b.srv.Close() }

// serveBytes is the baseline: net/http writing a prepared body with the
// same headers (Content-Type included).
func serveBytes(body []byte, hdr http.Header) (*bytesServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range hdr {
			w.Header()[k] = v
		}
		w.Write(body)
	})
	s := &http.Server{Handler: h}
	go s.Serve(l)
	return &bytesServer{srv: s, l: l}, nil
}

// throughput loads url from 16 connections for d and returns the 200s per
// second; any other answer is an error.
func throughput(loader, url string, d time.Duration) (float64, error) {
	if loader == "wrk" {
		return wrk(url, d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n, bad atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				code, err := get(url)
				switch {
				case err == nil && code == 200:
					n.Add(1)
				case ctx.Err() == nil:
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		return 0, fmt.Errorf("%s: %d requests failed under load", url, bad.Load())
	}
	return float64(n.Load()) / d.Seconds(), nil
}

// wrk runs wrk with one thread (the machine's other cores serve) and 16
// connections.
func wrk(url string, d time.Duration) (float64, error) {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	out, err := exec.Command("wrk", "-t1", "-c16", "-d"+strconv.Itoa(secs)+"s", url).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk: %v: %s", err, out)
	}
	if bytes.Contains(out, []byte("Non-2xx")) || bytes.Contains(out, []byte("Socket errors")) {
		return 0, fmt.Errorf("%s: failures under load:\n%s", url, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Requests/sec:"); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("wrk: no Requests/sec in:\n%s", out)
}
