package proctest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Varnish is a running varnishd with the shipped VCL (deploy/varnish) in
// front of a catalogd: the Varnish test and the edge benchmark run it.
type Varnish struct {
	URL   string // http://host:port of the public listener
	Purge string // http://host:port of the listener named purge
	// Output is varnishd's stdout and stderr.
	Output *SyncBuffer
	// Options are those it was started with: a restart's.
	Options VarnishOptions

	cmd  *exec.Cmd
	done chan struct{}
	dir  string
}

// VarnishOptions say how to start varnishd.
type VarnishOptions struct {
	Bin string // varnishd
	// VCL is the shipped VCL's file; DropIn the systemd drop-in whose -p
	// start parameters varnishd gets.
	VCL, DropIn string
	// Listen and PurgeListen are the host:port of the public and the purge
	// listener; Backend catalogd's public host:port.
	Listen, PurgeListen, Backend string
	// Edits are pairs of text in the VCL and its replacement, applied after
	// the backend's address.
	Edits []string
	// PurgeSecretFile is read by the VCL in place of the shipped
	// VarnishPurgeSecret ("": none, every purge refused); PurgeSecret
	// writes one.
	PurgeSecretFile string
	// Env is added to varnishd's environment (KEY=value).
	Env []string
}

// VarnishPurgeSecret is where the shipped VCL reads the purge secret.
const VarnishPurgeSecret = "/etc/catalogd/varnish-purge-secret"

// PurgeSecret writes a fresh random secret to a file in dir, for the VCL
// (VarnishOptions.PurgeSecretFile) and catalogd
// (CATALOG_PURGE_VARNISH_SECRET_FILE) alike, and returns the file.
func PurgeSecret(dir string) (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	file := filepath.Join(dir, "varnish-purge-secret")
	return file, os.WriteFile(file, []byte(hex.EncodeToString(b)+"\n"), 0o600)
}

// VarnishParams are the -p name=value start parameters of a systemd
// drop-in's ExecStart, as varnishd arguments.
func VarnishParams(dropIn string) ([]string, error) {
	unit, err := os.ReadFile(dropIn)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s+-p (\w+=\S+)`).FindAllStringSubmatch(string(unit), -1) {
		out = append(out, "-p", m[1])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s sets no varnishd parameter", dropIn)
	}
	return out, nil
}

// StartVarnish runs varnishd in a temporary work directory, as the
// invoking user (-j none), with the VCL's backend pointed at o.Backend, and
// returns once a request for catalogd's index passes through it (30 s at
// most).
func StartVarnish(o VarnishOptions) (*Varnish, error) {
	vcl, err := os.ReadFile(o.VCL)
	if err != nil {
		return nil, err
	}
	params, err := VarnishParams(o.DropIn)
	if err != nil {
		return nil, err
	}
	host, port, _ := strings.Cut(o.Backend, ":")
	text := strings.Replace(string(vcl), `.host = "127.0.0.1";`, `.host = "`+host+`";`, 1)
	text = strings.Replace(text, `.port = "8080";`, `.port = "`+port+`";`, 1)
	if !strings.Contains(text, VarnishPurgeSecret) {
		return nil, fmt.Errorf("the VCL reads no %s", VarnishPurgeSecret)
	}
	secret := o.PurgeSecretFile
	if secret == "" {
		secret = "/nonexistent/varnish-purge-secret"
	}
	text = strings.ReplaceAll(text, VarnishPurgeSecret, secret)
	for i := 0; i+1 < len(o.Edits); i += 2 {
		if !strings.Contains(text, o.Edits[i]) {
			return nil, fmt.Errorf("the VCL has no %q to edit", o.Edits[i])
		}
		text = strings.Replace(text, o.Edits[i], o.Edits[i+1], 1)
	}
	dir, err := os.MkdirTemp("", "catalogd-varnish-")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "catalogd.vcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	admin, err := FreeAddress()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A small shared-memory log (-l): nobody reads it.
	args := append([]string{"-F", "-j", "none", "-n", filepath.Join(dir, "work"), "-a", o.Listen,
		"-a", "purge=" + o.PurgeListen, "-T", admin, "-f", path, "-s", "malloc,64m", "-l", "8m"}, params...)
	v := &Varnish{URL: "http://" + o.Listen, Purge: "http://" + o.PurgeListen, Output: &SyncBuffer{}, Options: o,
		cmd: exec.Command(o.Bin, args...), done: make(chan struct{}), dir: dir}
	v.cmd.Stdout, v.cmd.Stderr = v.Output, v.Output
	v.cmd.Env = append(os.Environ(), o.Env...)
	if err := v.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go func() { v.cmd.Wait(); close(v.done) }()
	deadline := time.Now().Add(30 * time.Second)
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		resp, err := client.Get(v.URL + "/wp-json/shop/v1/catalog")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return v, nil
			}
			err = errors.New(resp.Status)
		}
		select {
		case <-v.done:
			v.Stop()
			return nil, fmt.Errorf("varnishd exited: %s", v.Output.String())
		default:
		}
		if time.Now().After(deadline) {
			v.Stop()
			return nil, fmt.Errorf("varnishd did not answer 200 through to catalogd within 30s: %v\n%s", err, v.Output.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop ends varnishd (SIGTERM: the manager stops its child first) and
// removes its work directory.
func (v *Varnish) Stop() {
	Terminate(v.cmd.Process, v.done, 10*time.Second)
	os.RemoveAll(v.dir)
}
